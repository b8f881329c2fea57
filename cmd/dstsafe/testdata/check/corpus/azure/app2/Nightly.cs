using System;
using Microsoft.Azure.WebJobs;
using Microsoft.Extensions.Logging;

// No WEBSITE_TIME_ZONE anywhere for this app: Azure evaluates the
// NCRONTAB expression in UTC.
public static class Nightly
{
    [FunctionName("Nightly")]
    public static void Run([TimerTrigger("0 30 1 * * *")] TimerInfo myTimer, ILogger log)
    {
        log.LogInformation($"Nightly run at: {DateTime.UtcNow}");
    }
}
