require 'rufus-scheduler'

scheduler = Rufus::Scheduler.new

scheduler.cron '30 1 * * * America/Chicago' do
  Billing.charge_due!
end

scheduler.join
