job "cleanup" {
  type = "batch"

  periodic {
    cron             = "0 2 * * *"
    time_zone        = "Europe/Berlin"
    prohibit_overlap = true
  }

  group "cleanup" {
    task "run" {
      driver = "docker"
      config {
        image = "cleanup:1"
      }
    }
  }
}
