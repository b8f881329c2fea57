package sqlledger

import (
	"fmt"
	"strings"
)

// queries holds the statements of one Ledger, built once for its dialect
// and table.
type queries struct {
	insert, insertOrGet, insertMany, getMany, get, takeover, heartbeat, finish string
	list                                                                       [4]string // no bound, from, to, both
	release                                                                    string
	getPause, pause, resume                                                    string
	jobs                                                                       string
	getJob, insertJob, updateJob                                               string
}

const cols = `job_name, period, status, owner, token, attempt, started_at, finished_at, lease_until, reason,
    schedule, released, released_by, release_reason, claim_id`

const pauseCols = `paused, changed_by, reason, since`

const jobCols = `job_name, schedule, spec, period_key, zone, zone_data, first_seen, last_seen, changed, owners,
    max_runs, bounds_start, bounds_end`

// quoteTable quotes each part of a validated (schema.)table name.
func quoteTable(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = `"` + p + `"`
	}
	return strings.Join(parts, ".")
}

func buildQueries(d Dialect, table string) *queries {
	t := quoteTable(table)
	q := &queries{
		// $1 job, $2 period, $3 owner, $4 now, $5 lease until, $6 schedule,
		// $7 the claim's ID.
		insert: `INSERT INTO ` + t + ` (` + cols + `)
VALUES ($1, $2, 'running', $3, 1, 1, $4, NULL, $5, '', $6, false, '', '', $7)
ON CONFLICT (job_name, period) DO NOTHING
RETURNING ` + cols,
		get: `SELECT ` + cols + ` FROM ` + t + ` WHERE job_name = $1 AND period = $2`,
		// $6..$8: the token, stored status and lease read before: the
		// takeover only happens if nobody changed the row since, not even
		// a heartbeat that revived an abandoned claim. $9 the schedule,
		// $10 the claim's ID. It uses up an operator's release, keeping
		// who made it and why.
		takeover: `UPDATE ` + t + `
SET status = 'running', owner = $3, token = token + 1, attempt = attempt + 1,
    started_at = $4, finished_at = NULL, lease_until = $5, reason = '', schedule = $9, released = false,
    claim_id = $10
WHERE job_name = $1 AND period = $2 AND token = $6 AND status = $7 AND lease_until = $8
RETURNING ` + cols,
		// $3 by, $4 reason, $5 now: failed, or running with its lease
		// over (abandoned, as Record.StateAt says), in one statement.
		release: `UPDATE ` + t + ` SET released = true, released_by = $3, release_reason = $4
WHERE job_name = $1 AND period = $2 AND (status = 'failed' OR (status = 'running' AND lease_until < $5))
RETURNING ` + cols,
		// $3 token, $4 new lease until.
		heartbeat: `UPDATE ` + t + ` SET lease_until = $4
WHERE job_name = $1 AND period = $2 AND token = $3 AND status = 'running'
RETURNING ` + cols,
		// $3 token, $4 status, $5 now, $6 reason.
		finish: `UPDATE ` + t + ` SET status = $4, finished_at = $5, reason = $6
WHERE job_name = $1 AND period = $2 AND token = $3 AND status = 'running'
RETURNING ` + cols,
	}
	// PostgreSQL only: data-modifying CTEs. The second branch sees only
	// rows committed before the statement began, never the CTE's own row.
	q.insertOrGet = `WITH ins AS (` + q.insert + `)
SELECT true, ` + cols + ` FROM ins
UNION ALL
SELECT false, ` + cols + ` FROM ` + t + ` WHERE job_name = $1 AND period = $2`
	// PostgreSQL only: a group of new claims in one statement (batch.go).
	// $1 jobs, $2 periods, $3 owners, $4 now, $5 leases until, $6 schedules,
	// $7 claim IDs.
	q.insertMany = `INSERT INTO ` + t + ` (` + cols + `)
SELECT j, p, 'running', o, 1, 1, $4, NULL, lu, '', sch, false, '', '', cid
FROM unnest($1::text[], $2::text[], $3::text[], $5::timestamptz[], $6::text[], $7::text[]) AS g(j, p, o, lu, sch, cid)
ON CONFLICT (job_name, period) DO NOTHING
RETURNING ` + cols
	// PostgreSQL only: the rows of the periods a group did not insert.
	// $1 jobs, $2 periods.
	q.getMany = `SELECT ` + cols + ` FROM ` + t + `
WHERE (job_name, period) IN (SELECT j, p FROM unnest($1::text[], $2::text[]) AS g(j, p))`
	base := `SELECT ` + cols + ` FROM ` + t + ` WHERE job_name = $1`
	q.list = [4]string{
		base + ` ORDER BY period`,
		base + ` AND period >= $2 ORDER BY period`,
		base + ` AND period < $2 ORDER BY period`,
		base + ` AND period >= $2 AND period < $3 ORDER BY period`,
	}
	// Pause state: one row per job ever paused. A pause or resume writes
	// only when it changes the state (the WHERE of each), so the first
	// decision keeps its by, reason and since; no row means not paused.
	// $1 job, $2 by, $3 reason, $4 now.
	p := quoteTable(table + "_pauses")
	q.getPause = `SELECT ` + pauseCols + ` FROM ` + p + ` WHERE job_name = $1`
	q.pause = `INSERT INTO ` + p + ` AS cur (job_name, ` + pauseCols + `) VALUES ($1, true, $2, $3, $4)
ON CONFLICT (job_name) DO UPDATE SET paused = true, changed_by = excluded.changed_by, reason = excluded.reason, since = excluded.since
WHERE cur.paused = false
RETURNING ` + pauseCols
	q.resume = `UPDATE ` + p + ` SET paused = false, changed_by = $2, reason = $3, since = $4
WHERE job_name = $1 AND paused = true
RETURNING ` + pauseCols
	// The jobs the ledger knows: a loose index scan of the primary key
	// (each step one MIN seek past the previous job, so the cost grows
	// with the jobs, not the periods: neither PostgreSQL before 18 nor
	// SQLite skips through an index for DISTINCT), and the pause rows.
	q.jobs = `WITH RECURSIVE j(name) AS (
    SELECT MIN(job_name) FROM ` + t + `
    UNION ALL
    SELECT (SELECT MIN(job_name) FROM ` + t + ` WHERE job_name > j.name) FROM j WHERE j.name IS NOT NULL
)
SELECT name FROM j WHERE name IS NOT NULL
UNION
SELECT job_name FROM ` + p + `
UNION
SELECT job_name FROM ` + quoteTable(table+"_jobs")
	// The job registry (jobs.go): read with the database's clock (on
	// PostgreSQL clock_timestamp(), in the same round trip; SQLite's
	// clock is the host's), written by a compare-and-set on revision.
	// $1 job.
	j := quoteTable(table + "_jobs")
	clockCol := `0`
	if d == PostgreSQL {
		clockCol = `clock_timestamp()`
	}
	q.getJob = `SELECT ` + clockCol + `, ` + jobCols + `, revision FROM (SELECT 1) AS one LEFT JOIN ` + j + ` ON job_name = $1`
	// $1 job, $2..$13 the other jobCols, $14 revision read (update only).
	q.insertJob = `INSERT INTO ` + j + ` (` + jobCols + `, revision)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 1)
ON CONFLICT (job_name) DO NOTHING
RETURNING revision`
	q.updateJob = `UPDATE ` + j + ` SET schedule = $2, spec = $3, period_key = $4, zone = $5, zone_data = $6,
    first_seen = $7, last_seen = $8, changed = $9, owners = $10,
    max_runs = $11, bounds_start = $12, bounds_end = $13, revision = revision + 1
WHERE job_name = $1 AND revision = $14
RETURNING revision`
	if d == SQLite {
		// SQLite numbers parameters ?NNN; $NNN would be a named parameter.
		for _, s := range []*string{&q.insert, &q.get, &q.takeover, &q.heartbeat, &q.finish, &q.list[0], &q.list[1], &q.list[2], &q.list[3],
			&q.release, &q.getPause, &q.pause, &q.resume, &q.getJob, &q.insertJob, &q.updateJob} {
			*s = strings.ReplaceAll(*s, "$", "?")
		}
	}
	return q
}

// migration is one step of the schema, applied once, in order.
type migration struct {
	version int
	about   string
	stmts   func(d Dialect, table string) []string
}

// migrations is the schema history. Append, never edit: databases in the
// field have run the old steps.
var migrations = []migration{
	{1, "create the job runs table", func(d Dialect, table string) []string {
		// SQLite: instants as microseconds since 1970 (UTC); WITHOUT
		// ROWID keeps the rows in the primary key's B-tree, so a claim
		// writes one page, not a table page and an index page.
		text, ts, suffix := `TEXT`, `BIGINT`, ` WITHOUT ROWID`
		if d == PostgreSQL {
			// COLLATE "C": keys compare as bytes, like SQLite's BINARY,
			// whatever the database's locale.
			text, ts, suffix = `TEXT COLLATE "C"`, `TIMESTAMPTZ`, ``
		}
		return []string{fmt.Sprintf(`CREATE TABLE %s (
    job_name    %s NOT NULL,
    period      %s NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
    owner       TEXT NOT NULL,
    token       BIGINT NOT NULL,
    attempt     INTEGER NOT NULL,
    started_at  %s NOT NULL,
    finished_at %s,
    lease_until %s NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (job_name, period)
)%s`, quoteTable(table), text, text, ts, ts, ts, suffix)}
	}},
	{2, "store schedule fingerprints, releases and pause state", func(d Dialect, table string) []string {
		// Columns with constant defaults: rows written before (and by
		// replicas still running version 1 during a rolling deploy) read
		// as no schedule, never released. PostgreSQL 11+ adds them
		// without rewriting the table.
		t := quoteTable(table)
		text, boolean, ts, suffix := `TEXT`, `INTEGER`, `BIGINT`, ` WITHOUT ROWID`
		if d == PostgreSQL {
			text, boolean, ts, suffix = `TEXT COLLATE "C"`, `BOOLEAN`, `TIMESTAMPTZ`, ``
		}
		return []string{
			`ALTER TABLE ` + t + ` ADD COLUMN schedule TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE ` + t + ` ADD COLUMN released ` + boolean + ` NOT NULL DEFAULT false`,
			`ALTER TABLE ` + t + ` ADD COLUMN released_by TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE ` + t + ` ADD COLUMN release_reason TEXT NOT NULL DEFAULT ''`,
			fmt.Sprintf(`CREATE TABLE %s (
    job_name   %s PRIMARY KEY,
    paused     %s NOT NULL,
    changed_by TEXT NOT NULL,
    reason     TEXT NOT NULL,
    since      %s NOT NULL
)%s`, quoteTable(table+"_pauses"), text, boolean, ts, suffix),
		}
	}},
	{3, "store claim IDs and the job registry", func(d Dialect, table string) []string {
		// claim_id: rows written before (and by replicas of the previous
		// release) read as a claim without an ID, which no retry matches.
		// The registry: one row per job; owners a JSON array, the most
		// recent first; revision the compare-and-set of every write.
		text, ts, suffix := `TEXT`, `BIGINT`, ` WITHOUT ROWID`
		if d == PostgreSQL {
			text, ts, suffix = `TEXT COLLATE "C"`, `TIMESTAMPTZ`, ``
		}
		return []string{
			`ALTER TABLE ` + quoteTable(table) + ` ADD COLUMN claim_id TEXT NOT NULL DEFAULT ''`,
			fmt.Sprintf(`CREATE TABLE %s (
    job_name   %s PRIMARY KEY,
    schedule   TEXT NOT NULL,
    spec       TEXT NOT NULL,
    period_key TEXT NOT NULL,
    zone       TEXT NOT NULL,
    zone_data  TEXT NOT NULL,
    first_seen %s NOT NULL,
    last_seen  %s NOT NULL,
    changed    %s NOT NULL,
    owners     TEXT NOT NULL,
    revision   BIGINT NOT NULL
)%s`, quoteTable(table+"_jobs"), text, ts, ts, ts, suffix),
		}
	}},
	{4, "store job limits in the job registry", func(d Dialect, table string) []string {
		// WithMaxRuns and WithBounds as the registrant said them. Constant
		// defaults: registrations written before (and by replicas of the
		// previous release, which name only their own columns) read as no
		// limits; an update by such a replica leaves the limits as they
		// are, as a registration that says none does. The bounds are
		// RFC 3339 text in UTC to the nanosecond, '' for an open side:
		// the same on SQLite and PostgreSQL, whose timestamptz keeps only
		// microseconds.
		j := quoteTable(table + "_jobs")
		return []string{
			`ALTER TABLE ` + j + ` ADD COLUMN max_runs BIGINT NOT NULL DEFAULT 0`,
			`ALTER TABLE ` + j + ` ADD COLUMN bounds_start TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE ` + j + ` ADD COLUMN bounds_end TEXT NOT NULL DEFAULT ''`,
		}
	}},
}

// SchemaVersion is the schema version Migrate brings a database to: the
// version of the last migration.
const SchemaVersion = 4
