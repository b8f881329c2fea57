# A script that is not an Airflow DAG: its keyword arguments mean nothing
# the checker knows.
import schedule_lib

schedule_lib.add(schedule="30 1 * * *", tz="America/Chicago")
