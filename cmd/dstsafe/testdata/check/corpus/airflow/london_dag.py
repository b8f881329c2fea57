from datetime import datetime, timedelta

import pendulum
from airflow import DAG
from airflow.operators.python import PythonOperator

local_tz = pendulum.timezone("Europe/London")

default_args = {
    "owner": "data",
    "start_date": datetime(2024, 1, 1, tzinfo=local_tz),
    "retries": 1,
    "retry_delay": timedelta(minutes=5),
}

dag = DAG("ledger_export", default_args=default_args, schedule_interval="0 1 * * *")

PythonOperator(task_id="export", python_callable=lambda: None, dag=dag)
