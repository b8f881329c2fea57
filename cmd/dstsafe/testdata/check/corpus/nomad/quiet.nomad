job "compact" {
  type = "batch"
  periodic {
    cron      = "0 2 * * *"
    time_zone = "UTC"
  }
}

job "rotate" {
  type = "batch"
  # No time_zone: Nomad evaluates the cron in UTC.
  periodic {
    crons = ["30 1 * * *"]
  }
}
