CREATE EXTENSION IF NOT EXISTS pg_cron;
ALTER SYSTEM SET cron.timezone = 'Europe/London';
SELECT pg_reload_conf();

SELECT cron.schedule(
    job_name => 'purge-audit',
    schedule => '30 1 * * *',
    command  => $$DELETE FROM audit WHERE at < now() - interval '90 days'$$
);
