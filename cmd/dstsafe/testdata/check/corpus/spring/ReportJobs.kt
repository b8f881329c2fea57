package com.acme.reports

import org.springframework.scheduling.annotation.Scheduled
import org.springframework.stereotype.Component

@Component
class ReportJobs(private val reports: ReportService) {

    @Scheduled(
        cron = "0 15 2 * * *",
        zone = "Europe/Berlin",
    )
    fun nightly() = reports.buildNightly()
}
