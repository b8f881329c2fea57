-- No cron.timezone: pg_cron runs these in GMT.
SELECT cron.schedule('rollup', '30 1 * * *', 'CALL rollup()');
SELECT cron.schedule('vacuum', '0 2 * * 0', 'VACUUM');
