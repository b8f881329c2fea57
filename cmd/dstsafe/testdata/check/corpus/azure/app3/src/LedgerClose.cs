using Microsoft.Azure.Functions.Worker;

public class LedgerClose
{
    [Function(nameof(LedgerClose))]
    public void Run(
        [TimerTrigger("0 30 1 * * *")] TimerInfo timer)
    {
    }
}
