from datetime import datetime
from zoneinfo import ZoneInfo

from airflow import DAG
from airflow.operators.empty import EmptyOperator

with DAG(
    "reconcile",
    schedule="45 2 * * *",
    start_date=datetime(
        2024, 1, 1,
        tzinfo=ZoneInfo("America/Chicago"),
    ),
):
    EmptyOperator(task_id="noop")
