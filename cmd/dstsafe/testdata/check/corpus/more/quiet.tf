# An EventBridge rule and a Nomad job in UTC: nothing to say.
resource "aws_cloudwatch_event_rule" "nightly" {
  name                = "nightly"
  schedule_expression = "cron(30 1 * * ? *)"
}

job "report" {
  periodic {
    cron      = "30 1 * * *"
    time_zone = "UTC"
  }
}
