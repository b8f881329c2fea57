job "reports" {
  datacenters = ["dc1"]
  type        = "batch"

  periodic {
    crons            = ["30 1 * * *", "0 13 * * *"]
    time_zone        = "America/Chicago"
    prohibit_overlap = true
  }

  group "reports" {
    task "build" {
      driver = "docker"
      config {
        image = "registry.example.com/reports:1.9"
      }
    }
  }
}
