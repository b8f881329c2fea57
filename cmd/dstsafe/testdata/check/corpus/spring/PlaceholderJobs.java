package com.acme.ops;

import org.springframework.scheduling.annotation.Scheduled;

public class PlaceholderJobs {
    // The schedule lives in configuration this check does not resolve.
    @Scheduled(cron = "${billing.cron}", zone = "${billing.zone}")
    public void bill() {}
}
