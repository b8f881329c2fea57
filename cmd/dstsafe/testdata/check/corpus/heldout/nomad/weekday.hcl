job "weekday-export" {
  type = "batch"
  periodic {
    crons     = ["0 2 * * 1-5"]
    time_zone = "America/New_York"
  }
}
