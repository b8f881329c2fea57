package com.acme.billing;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
public class BillingScheduler {

    private final BillingService billing;

    public BillingScheduler(BillingService billing) {
        this.billing = billing;
    }

    @Scheduled(cron = "0 30 1 * * *", zone = "America/Chicago")
    public void chargeSubscriptions() {
        billing.chargeDue();
    }

    @Scheduled(cron = "0 0 9 * * MON-FRI", zone = "America/Chicago")
    public void sendReminders() {
        billing.remind();
    }

    @Scheduled(fixedRate = 60_000)
    public void heartbeat() {
    }
}
