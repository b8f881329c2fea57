package com.acme.ops;

import org.springframework.scheduling.annotation.Scheduled;

public class QuietJobs {
    // UTC by name.
    @Scheduled(cron = "0 30 1 * * *", zone = "UTC")
    public void compact() {}

    // No zone: the JVM's default zone (TZ=UTC in our images).
    @Scheduled(cron = "0 30 1 * * *")
    public void rotate() {}

    // Every 15 minutes follows real time.
    @Scheduled(cron = "0 */15 * * * *", zone = "America/Chicago")
    public void poll() {}

    // Sundays 03:00 New York: after the gap, after the fold.
    @Scheduled(cron = "0 0 3 * * SUN", zone = "America/New_York")
    public void weekly() {}
}
