# Terraform: the Berlin settlement job at 02:15.
resource "aws_scheduler_schedule" "settlement" {
  name       = "settlement"
  group_name = "default"

  flexible_time_window {
    mode = "OFF"
  }

  schedule_expression          = "cron(15 2 * * ? *)"
  schedule_expression_timezone = "Europe/Berlin"

  target {
    arn      = aws_lambda_function.settlement.arn
    role_arn = aws_iam_role.scheduler.arn
  }
}

# A rule: EventBridge rules are always UTC.
resource "aws_cloudwatch_event_rule" "cleanup" {
  name                = "cleanup"
  schedule_expression = "cron(30 2 * * ? *)"
}

# A rate schedule follows real time.
resource "aws_scheduler_schedule" "poll" {
  name = "poll"
  flexible_time_window {
    mode = "OFF"
  }
  schedule_expression          = "rate(5 minutes)"
  schedule_expression_timezone = "America/Chicago"
  target {
    arn      = aws_lambda_function.poll.arn
    role_arn = aws_iam_role.scheduler.arn
  }
}

# Noon in Chicago: outside every window.
resource "aws_scheduler_schedule" "report" {
  name = "report"
  flexible_time_window {
    mode = "OFF"
  }
  schedule_expression          = "cron(0 12 ? * MON-FRI *)"
  schedule_expression_timezone = "America/Chicago"
  target {
    arn      = aws_lambda_function.report.arn
    role_arn = aws_iam_role.scheduler.arn
  }
}
