from celery import Celery
from celery.schedules import crontab

app = Celery("tasks", broker="redis://localhost:6379/0")
app.conf.update(
    timezone="Australia/Sydney",
    enable_utc=False,
)

app.conf.beat_schedule = {
    "weekly-payroll": {
        "task": "payroll.run",
        "schedule": crontab(minute=30, hour=2, day_of_week="sun"),
    },
}
