import pendulum
from airflow.decorators import dag, task
from airflow.timetables.trigger import CronTriggerTimetable
from airflow.timetables.interval import CronDataIntervalTimetable


@dag(
    timetable=CronTriggerTimetable("30 2 * * *", timezone="America/New_York"),
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
    catchup=False,
)
def settle():
    @task
    def run():
        pass

    run()


@dag(
    timetable=CronDataIntervalTimetable("0 2 * * *", timezone=pendulum.timezone("Europe/Berlin")),
    start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
)
def aggregate():
    @task
    def run():
        pass

    run()


settle()
aggregate()
