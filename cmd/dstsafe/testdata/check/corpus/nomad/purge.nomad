job "purge" {
  type = "batch"

  periodic {
    crons = [
      "45 23 * * *",
      "15 2 * * *",
    ]
    time_zone = "Europe/Berlin"
  }

  group "purge" {
    task "purge" {
      driver = "exec"
      config {
        command = "/usr/local/bin/purge"
      }
    }
  }
}
