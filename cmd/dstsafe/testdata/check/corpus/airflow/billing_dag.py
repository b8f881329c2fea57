"""Nightly billing at 01:30 Chicago time."""
import pendulum
from airflow import DAG
from airflow.operators.bash import BashOperator

with DAG(
    dag_id="billing",
    schedule="30 1 * * *",
    start_date=pendulum.datetime(2024, 1, 1, tz="America/Chicago"),
    catchup=False,
) as dag:
    BashOperator(task_id="bill", bash_command="bill --date {{ ds }}")
