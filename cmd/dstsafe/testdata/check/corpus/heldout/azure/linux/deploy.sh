#!/bin/sh
az functionapp config appsettings set \
  --name purge-fn --resource-group ops \
  --settings "WEBSITE_TIME_ZONE=Europe/Paris"
