using Microsoft.Azure.Functions.Worker;
using Microsoft.Extensions.Logging;

namespace Acme.Billing;

public class Jobs
{
    // 04:00 Central: never skipped or repeated.
    [Function("Cleanup")]
    public void Cleanup([TimerTrigger("0 0 4 * * *")] TimerInfo timer, FunctionContext ctx)
    {
    }

    // Sundays 02:30 Central: 2026-03-08 is a Sunday and has no 02:30.
    [Function("Reconcile")]
    public void Reconcile([TimerTrigger("0 30 2 * * 0", RunOnStartup = false)] TimerInfo timer)
    {
    }

    [Function("Heartbeat")]
    public void Heartbeat([TimerTrigger("0 */5 * * * *")] TimerInfo timer)
    {
    }
}
