#!/usr/bin/env bash
set -euo pipefail
gcloud scheduler jobs create pubsub nightly-rollup \
  --location=us-central1 \
  --schedule="30 2 * * *" \
  --time-zone="America/Denver" \
  --topic=rollup \
  --message-body='{}'
