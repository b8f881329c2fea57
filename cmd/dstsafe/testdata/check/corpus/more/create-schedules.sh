#!/bin/sh
set -eu
# EventBridge Scheduler, created by script.
aws scheduler create-schedule --name nightly-export \
  --schedule-expression 'cron(30 1 * * ? *)' \
  --schedule-expression-timezone America/Chicago \
  --flexible-time-window '{"Mode": "OFF"}' \
  --target file://target.json

# Google Cloud Scheduler.
gcloud scheduler jobs create http sync --schedule="15 2 * * *" \
  --time-zone="America/Los_Angeles" --uri=https://example.com/sync

# In UTC: fine.
aws scheduler create-schedule --name utc-export \
  --schedule-expression 'cron(30 1 * * ? *)' \
  --schedule-expression-timezone UTC \
  --flexible-time-window '{"Mode": "OFF"}' --target file://target.json
