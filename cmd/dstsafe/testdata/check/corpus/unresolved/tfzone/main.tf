resource "azurerm_windows_function_app" "billing" {
  name = "billing"
  app_settings = {
    WEBSITE_TIME_ZONE = var.time_zone
  }
}
