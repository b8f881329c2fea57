resource "azurerm_linux_function_app" "ledger" {
  name                = "ledger-close"
  resource_group_name = azurerm_resource_group.ledger.name
  location            = "uksouth"
  service_plan_id     = azurerm_service_plan.ledger.id

  site_config {}

  app_settings = {
    "FUNCTIONS_WORKER_RUNTIME" = "dotnet-isolated"
    "WEBSITE_TIME_ZONE"        = "Europe/London"
  }
}
