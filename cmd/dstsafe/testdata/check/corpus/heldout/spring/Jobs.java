package com.acme.jobs;

import org.springframework.scheduling.annotation.Scheduled;

public class Jobs {
    private static final String ZONE = "America/Chicago";

    @Scheduled(cron = "0 0 2 * * *", zone = ZONE)
    public void reconcile() {}

    @Scheduled(cron = "0 30 1 * * MON", zone = ZONE)
    public void weekly() {}
}
