public static class NightlyTimer
{
    [FunctionName("NightlyTimer")]
    public static async Task Run([TimerTrigger("0 15 2 * * *")] TimerInfo timer, ILogger log)
    {
        await Task.CompletedTask;
    }
}
