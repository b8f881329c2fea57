-- Nightly maintenance, scheduled with pg_cron (cron.timezone in postgresql.conf).
SELECT cron.schedule('nightly-rollup', '30 1 * * *', $$CALL rollup_daily()$$);
SELECT cron.schedule('vacuum-events', '0 4 * * *', 'VACUUM ANALYZE events');
SELECT cron.schedule_in_database('invoice-run', '15 2 * * *', $$CALL billing.run()$$, 'billing');
SELECT cron.schedule('every-minute-queue', '* * * * *', 'SELECT process_queue()');
