package com.acme.quartz;

import java.util.TimeZone;
import org.quartz.*;

public class QuartzConfig {
    Trigger settlementTrigger(JobDetail job) {
        return TriggerBuilder.newTrigger()
            .forJob(job)
            .withIdentity("settlement")
            .withSchedule(CronScheduleBuilder.cronSchedule("0 30 2 ? * *")
                .inTimeZone(TimeZone.getTimeZone("America/Los_Angeles"))
                .withMisfireHandlingInstructionDoNothing())
            .build();
    }
}
