job "settle" {
  type = "batch"

  periodic {
    time_zone        = "America/Chicago"
    crons            = ["30 2 * * *"]
    prohibit_overlap = true
  }
}
