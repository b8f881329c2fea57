ALTER SYSTEM SET cron.timezone TO 'America/New_York';

-- nightly vacuum
SELECT cron.schedule('0 2 * * *', 'VACUUM');
