from celery import Celery
from celery.schedules import crontab

from . import settings

app = Celery("billing")
app.conf.timezone = settings.BILLING_TZ
app.conf.beat_schedule = {
    "charge": {"task": "billing.charge", "schedule": crontab(hour=1, minute=30)},
}
