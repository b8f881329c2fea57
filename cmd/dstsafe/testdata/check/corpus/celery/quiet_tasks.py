from celery import Celery
from celery.schedules import crontab

app = Celery("quiet")
app.conf.update(timezone="UTC")
app.conf.beat_schedule = {
    "nightly": {"task": "t.nightly", "schedule": crontab(hour=1, minute=30)},
}
