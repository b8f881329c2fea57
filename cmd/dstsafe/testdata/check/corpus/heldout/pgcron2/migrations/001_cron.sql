CREATE EXTENSION IF NOT EXISTS pg_cron;
SELECT cron.schedule(
  'nightly-archive',
  '15 2 * * *',
  $$INSERT INTO archive SELECT * FROM events WHERE created_at < now() - interval '30 days'$$
);
