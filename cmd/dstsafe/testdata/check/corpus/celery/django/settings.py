from celery.schedules import crontab

DEBUG = False
USE_TZ = True
TIME_ZONE = "America/New_York"

CELERY_BROKER_URL = "redis://redis:6379/1"
CELERY_BEAT_SCHEDULE = {
    "monthly-statements": {
        "task": "statements.tasks.generate",
        # The 1st at 01:30: 2026-11-01 is the fall-back night in New York.
        "schedule": crontab(minute=30, hour=1, day_of_month=1),
    },
    "quarterly-close": {
        "task": "ledger.tasks.close",
        "schedule": crontab(minute=0, hour=5, day_of_month=1, month_of_year="1,4,7,10"),
    },
}
