from celery.schedules import crontab

broker_url = "redis://redis:6379/0"
timezone = "America/Chicago"
enable_utc = True

beat_schedule = {
    "nightly-billing": {
        "task": "billing.tasks.charge_due",
        "schedule": crontab(hour=1, minute=30),
    },
    "morning-digest": {
        "task": "notify.tasks.digest",
        "schedule": crontab(hour=7, minute=0, day_of_week="mon-fri"),
    },
    "every-five-minutes": {
        "task": "ops.tasks.heartbeat",
        "schedule": 300.0,
    },
}
