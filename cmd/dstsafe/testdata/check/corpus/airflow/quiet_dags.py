"""DAGs that are right across transitions."""
from datetime import datetime

import pendulum
from airflow import DAG
from airflow.timetables.trigger import CronTriggerTimetable

# UTC start date: the schedule is in UTC.
with DAG("utc", schedule="30 1 * * *", start_date=pendulum.datetime(2024, 1, 1, tz="UTC")):
    pass

# A naive start date: Airflow's default_timezone, UTC.
with DAG("naive", schedule="30 1 * * *", start_date=datetime(2024, 1, 1)):
    pass

# 09:00 in Chicago.
with DAG("morning", schedule="0 9 * * *", start_date=pendulum.datetime(2024, 1, 1, tz="America/Chicago")):
    pass

# Hourly in Chicago follows real time.
with DAG("hourly", schedule="@hourly", start_date=pendulum.datetime(2024, 1, 1, tz="America/Chicago")):
    pass

# A trigger timetable in UTC.
with DAG("trigger_utc", timetable=CronTriggerTimetable("30 1 * * *", timezone="UTC"), start_date=datetime(2024, 1, 1)):
    pass
