from celery import Celery
from celery.schedules import crontab

app = Celery("poll")
app.conf.timezone = "America/Chicago"
app.conf.beat_schedule = {
    "poll": {"task": "poll.run", "schedule": crontab(minute="*/10")},
}
