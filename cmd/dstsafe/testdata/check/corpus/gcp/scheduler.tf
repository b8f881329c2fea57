resource "google_cloud_scheduler_job" "weekly_settlement" {
  name        = "weekly-settlement"
  description = "Sunday settlement, London books"
  schedule    = "30 1 * * 0"
  time_zone   = "Europe/London"

  pubsub_target {
    topic_name = google_pubsub_topic.settlement.id
    data       = base64encode("settle")
  }
}

resource "google_cloud_scheduler_job" "monday_digest" {
  name      = "monday-digest"
  schedule  = "30 1 * * 1"
  time_zone = "Europe/London"

  pubsub_target {
    topic_name = google_pubsub_topic.digest.id
  }
}
