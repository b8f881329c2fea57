# Google Cloud Scheduler: cron with a time_zone.
resource "google_cloud_scheduler_job" "invoice" {
  name      = "invoice"
  schedule  = "30 2 * * *"
  time_zone = "America/New_York"

  http_target {
    uri         = "https://billing.example.com/run"
    http_method = "POST"
  }
}

# The same job in UTC.
resource "google_cloud_scheduler_job" "invoice_utc" {
  name      = "invoice-utc"
  schedule  = "30 7 * * *"
  time_zone = "Etc/UTC"

  http_target {
    uri = "https://billing.example.com/run"
  }
}
