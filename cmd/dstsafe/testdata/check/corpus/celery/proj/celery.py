import os

from celery import Celery
from celery.schedules import crontab

app = Celery("proj")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.timezone = "Europe/Berlin"

app.conf.beat_schedule = {
    "purge-sessions": {
        "task": "proj.tasks.purge",
        "schedule": crontab(minute=15, hour=2),
    },
    "hourly-sync": {
        "task": "proj.tasks.sync",
        "schedule": crontab(minute=0),
    },
}
