package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/user"
	"slices"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

var ledgerCmd = &command{
	name:    "ledger",
	summary: "operate jobs in a ledger: jobs, list, show, retry, skip, pause, resume, audit",
	usage: `Usage: dstsafe ledger list|show|retry|skip|pause|resume JOB [PERIOD] (--sqlite PATH | --postgres DSN | --redis ADDR) [--json]
       dstsafe ledger jobs (--sqlite PATH | --postgres DSN | --redis ADDR) [--json]
       dstsafe ledger audit --job JOB --from D --to D [--schedule SPEC] (--sqlite PATH | ...) [--json]

Reads and changes what a dstsafe ledger records about a job's periods,
on the SQLite file, PostgreSQL database or Redis server its services
share. Every decision is stored in the ledger, so every replica obeys it
and a restart does not forget it; it is recorded with who made it (--by)
and, for retry, skip and pause, why (--reason, required).

  jobs          the jobs the ledger knows (registered, or with a record
                or a pause state): the registered schedule, its period
                key, its limits (max runs, bounds), when a service or
                exec last registered it, periods,
                the latest period and its state, pause state; the keys
                the library derives from a job (JOB/max-runs, JOB/alerts)
                are not listed
  list JOB      the job's registered schedule and its periods, failed
                and abandoned first, then the others by period; with its
                pause state
  show JOB PERIOD
                one period's record
  retry JOB PERIOD
                let a failed or abandoned period be taken over once by the
                next claim, whatever the job's retry policy (the period
                runs when a scheduler next claims it: RunNow, Backfill, a
                catch-up); refused for running, succeeded and skipped ones
  skip JOB PERIOD
                record a period as deliberately not run: a period without
                a record is claimed and finished skipped, a failed or
                abandoned one released, taken over and finished skipped;
                refused for running and succeeded ones
  pause JOB     pause the job on every replica (its periods due while
                paused are skipped) until resume; --force pauses a job
                the ledger does not know yet (not deployed yet)
  resume JOB    resume it
  audit         every period of the job's schedule (the registered one,
                else the one its latest record was made under; or
                --schedule) due in [--from, --to) (and
                before now) without a succeeded record: missing (no
                record), failed, abandoned, running, skipped (by whom,
                why); exit 1 when one is missing, failed or abandoned.
                A period without a record that the job's registered
                limits exclude (outside its bounds, or after it used its
                max runs) is not expected, only counted

A JOB the ledger has no record and no pause state for is refused (exit
1) with the closest known name: a typo is never read as "no periods".

A pause or resume is stamped with the store's clock (PostgreSQL's
clock_timestamp(), Redis's TIME, the SQLite file's host), never this
host's: schedulers skip as paused the periods due before a resume's
instant, so a CLI clock running ahead would skip real periods.

Periods are the ledger's keys, as the scheduler wrote them: the nominal
period (2024-11-03, or 2024-11-03T01:30:00 by wall reading), never the
instant a run started, so the two 01:30s of a fall-back night are one
period. Instants are printed in UTC.

Flags:
  --sqlite PATH     the ledger's SQLite file (never created)
  --postgres DSN    the ledger's PostgreSQL database (postgres://...)
  --redis ADDR      the ledger's Redis server (host:port or redis://...)
  --ledger URL      instead of the three above, as dstsafe exec takes it
                    (default $DSTSAFE_LEDGER): sqlite:///abs/path.db,
                    postgres://..., redis://host:port/db
  --table NAME      SQL table (default dstsafe_job_runs)
  --prefix P        Redis key prefix (default dstsafe:)
  --migrate         upgrade the ledger's SQL schema first (as a service's
                    Migrate does: safe while services run)
  --by NAME         who decides (default user@host)
  --reason TEXT     why (required for retry, skip and pause)
  --state S,...     list: only these states (running, succeeded, failed,
                    abandoned, skipped)
  --from DATE       list: periods from this civil date (YYYY-MM-DD)
  --to DATE         list: periods up to this civil date, included
  --force           pause: pause a job the ledger does not know
  --job JOB         audit: the job
  --schedule SPEC   audit: its cron spec, as the service gives it (default:
                    the registered schedule)
  --from/--to D     audit: the range, from included, to excluded: a
                    civil date (local midnight in the spec's zone), an
                    RFC 3339 instant or a wall time
  --key wall|date   audit: how --schedule keys periods (default: the
                    registered key, else wall; date for
                    WithPeriodKey(ByDate))
  --fold P, --gap P, --seconds
                    audit: the spec's policies, as for dstsafe next
  --json            JSON output

Examples:
  dstsafe ledger list billing --sqlite /var/lib/billing/ledger.db --state failed,abandoned
  dstsafe ledger show billing 2024-11-03 --postgres postgres://ops@db/billing --table billing.job_runs
  dstsafe ledger retry billing 2024-11-03 --reason 'card processor back' --redis 127.0.0.1:6379
  dstsafe ledger skip billing 2024-11-03 --reason 'charged by hand' --sqlite ledger.db
  dstsafe ledger pause billing --reason 'incident 42' --sqlite ledger.db
  dstsafe ledger jobs --sqlite ledger.db
  dstsafe ledger audit --job billing --from 2024-11-01 --to 2024-12-01 --sqlite ledger.db

Exit status: 0 done (or nothing to change); 1 the ledger refused: an
unknown job, no record to show, a period that may not be retried or
skipped, or an audit that found periods missing, failed or abandoned; 2 bad
arguments, or a ledger that cannot be opened or read.
`,
	run: runLedger,
}

// ledgerFlags are the flags of every ledger subcommand.
type ledgerFlags struct {
	sqlite, postgres, redis string
	url                     string // --ledger, parsed into the three above by openLedger
	table, prefix           string
	migrate                 bool
	by, reason              string
	state, from, to         string
	force                   bool
	job, schedule           string
	sched                   *scheduleFlags
	key                     string
	audit                   *auditSpec // audit's, parsed before the ledger is opened
}

// subcommand says what a ledger subcommand takes.
type subcommand struct {
	args  int      // 0: none, 1: JOB, 2: JOB PERIOD
	flags []string // the flags it takes besides the backend's and --json
	run   func(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job, period string) error
}

var subcommands = map[string]subcommand{
	"jobs":   {0, nil, ledgerJobs},
	"list":   {1, []string{"state", "from", "to"}, ledgerList},
	"show":   {2, nil, ledgerShow},
	"retry":  {2, []string{"by", "reason"}, ledgerRetry},
	"skip":   {2, []string{"by", "reason"}, ledgerSkip},
	"pause":  {1, []string{"by", "reason", "force"}, ledgerPause},
	"resume": {1, []string{"by", "reason"}, ledgerResume},
	"audit":  {0, []string{"job", "schedule", "from", "to", "fold", "gap", "seconds", "key"}, ledgerAudit},
}

const subcommandNames = "jobs, list, show, retry, skip, pause, resume, audit"

func runLedger(c *cmdContext, args []string) error {
	f := &ledgerFlags{}
	c.fs.StringVar(&f.sqlite, "sqlite", "", "")
	c.fs.StringVar(&f.postgres, "postgres", "", "")
	c.fs.StringVar(&f.redis, "redis", "", "")
	c.fs.StringVar(&f.url, "ledger", "", "")
	c.fs.StringVar(&f.table, "table", "", "")
	c.fs.StringVar(&f.prefix, "prefix", "", "")
	c.fs.BoolVar(&f.migrate, "migrate", false, "")
	c.fs.StringVar(&f.by, "by", "", "")
	c.fs.StringVar(&f.reason, "reason", "", "")
	c.fs.StringVar(&f.state, "state", "", "")
	c.fs.StringVar(&f.to, "to", "", "")
	c.fs.BoolVar(&f.force, "force", false, "")
	c.fs.StringVar(&f.job, "job", "", "")
	c.fs.StringVar(&f.schedule, "schedule", "", "")
	c.fs.StringVar(&f.key, "key", "", "")
	f.sched = c.scheduleFlags(true) // --from (shared with list), --fold, --gap, --seconds
	pos, err := c.parse(args, 0, 3)
	if err != nil {
		return err
	}
	f.from = f.sched.from
	if len(pos) == 0 {
		return usagef("missing subcommand: want one of %s", subcommandNames)
	}
	sub, ok := subcommands[pos[0]]
	if !ok {
		return usagef("unknown subcommand %q: want one of %s", pos[0], subcommandNames)
	}
	want := 1 + sub.args
	switch {
	case len(pos) < want && len(pos) < 2:
		return usagef("%s: missing JOB", pos[0])
	case len(pos) < want:
		return usagef("%s: missing PERIOD", pos[0])
	case len(pos) > want:
		return usagef("%s: unexpected argument %q", pos[0], pos[want])
	}
	allowed := map[string]bool{"sqlite": true, "postgres": true, "redis": true, "ledger": true, "table": true, "prefix": true,
		"migrate": true, "json": true, "zoneinfo": true}
	for _, name := range sub.flags {
		allowed[name] = true
	}
	var extra []string
	c.fs.Visit(func(fl *flag.Flag) {
		if !allowed[fl.Name] {
			extra = append(extra, "--"+fl.Name)
		}
	})
	if len(extra) > 0 {
		return usagef("%s does not take %s", pos[0], strings.Join(extra, ", "))
	}
	if slices.Contains(sub.flags, "by") && f.by == "" {
		f.by = defaultBy()
	}
	if slices.Contains(sub.flags, "reason") && pos[0] != "resume" && strings.TrimSpace(f.reason) == "" {
		return usagef("%s: missing --reason: say why, it is recorded with the decision", pos[0])
	}
	var job, period string
	if sub.args >= 1 {
		job = pos[1]
	}
	if sub.args == 2 {
		period = pos[2]
	}
	if pos[0] == "audit" {
		if f.audit, err = parseAudit(c, f); err != nil {
			return err
		}
		job = f.job
	}
	ctx := context.Background()
	if pos[0] == "pause" || pos[0] == "resume" {
		// Pause.Since, the instant schedulers compare due periods with,
		// is stamped by the ledger's own clock (PostgreSQL's
		// clock_timestamp(), Redis's TIME, the SQLite file's host), never
		// this host's: a clock running ahead here would skip real periods
		// as paused after a resume.
		c.storeClock = true
	}
	l, closeLedger, err := openLedger(ctx, c, f)
	if err != nil {
		return err
	}
	defer closeLedger()
	if job != "" && !(pos[0] == "pause" && f.force) {
		if err := requireKnown(c, l, job, pos[0]); err != nil {
			return err
		}
	}
	return sub.run(c, l, f, job, period)
}

// defaultBy names the operator: user@host.
func defaultBy() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return name + "@" + host
}

// refused writes the ledger's refusal to stderr and returns exit 1.
func refused(c *cmdContext, format string, args ...any) error {
	fmt.Fprintf(c.stderr, "dstsafe ledger: "+format+"\n", args...)
	return &exitError{code: exitFindings}
}

// attention orders states for list: failed and abandoned first.
func attention(s dstsafe.State) int {
	if s == dstsafe.StateFailed || s == dstsafe.StateAbandoned {
		return 0
	}
	return 1
}

var stateNames = map[string]dstsafe.State{
	"running": dstsafe.StateRunning, "succeeded": dstsafe.StateSucceeded, "failed": dstsafe.StateFailed,
	"abandoned": dstsafe.StateAbandoned, "skipped": dstsafe.StateSkipped,
}

func ledgerList(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job, _ string) error {
	ctx := context.Background()
	states := map[dstsafe.State]bool{}
	if f.state != "" {
		for _, s := range strings.Split(f.state, ",") {
			st, ok := stateNames[strings.TrimSpace(s)]
			if !ok {
				return usagef("bad --state %q: want running, succeeded, failed, abandoned or skipped, separated by commas", s)
			}
			states[st] = true
		}
	}
	from, to, err := periodRange(f.from, f.to)
	if err != nil {
		return err
	}
	recs, err := l.List(ctx, job, from, to)
	if err != nil {
		return err
	}
	pause, err := l.GetPause(ctx, job)
	if err != nil {
		return err
	}
	info, err := registrationOf(ctx, l, job)
	if err != nil {
		return err
	}
	shown := recs[:0:0]
	for _, r := range recs {
		if len(states) == 0 || states[r.State] {
			shown = append(shown, r)
		}
	}
	slices.SortStableFunc(shown, func(a, b dstsafe.Record) int {
		return cmp.Or(cmp.Compare(attention(a.State), attention(b.State)), strings.Compare(a.Period, b.Period))
	})
	if c.json {
		out := struct {
			Job          string            `json:"job"`
			Registration *registrationJSON `json:"registration,omitempty"`
			Pause        pauseJSON         `json:"pause"`
			Records      []recordJSON      `json:"records"`
		}{Job: job, Registration: toRegistrationJSON(info), Pause: toPauseJSON(pause), Records: []recordJSON{}}
		for _, r := range shown {
			out.Records = append(out.Records, toRecordJSON(r))
		}
		return writeJSON(c.stdout, out)
	}
	if info != nil {
		fmt.Fprintf(c.stdout, "%s: %s\n", job, registrationLine(info))
	}
	fmt.Fprintf(c.stdout, "%s: %s\n", job, pauseLine(pause))
	if len(shown) == 0 {
		fmt.Fprintf(c.stdout, "no periods%s\n", rangeNote(f, len(states) > 0))
		return nil
	}
	counts := map[dstsafe.State]int{}
	for _, r := range shown {
		counts[r.State]++
	}
	var parts []string
	for _, st := range []dstsafe.State{dstsafe.StateFailed, dstsafe.StateAbandoned, dstsafe.StateRunning, dstsafe.StateSucceeded, dstsafe.StateSkipped} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	fmt.Fprintf(c.stdout, "%d period(s)%s: %s\n\n", len(shown), rangeNote(f, len(states) > 0), strings.Join(parts, ", "))
	tw := newTable(c.stdout)
	fmt.Fprintln(tw, "PERIOD\tSTATE\tATTEMPT\tOWNER\tSTARTED (UTC)\tFINISHED (UTC)\tNOTE")
	for _, r := range shown {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Period, r.State, r.Attempt, r.Owner, utc(r.StartedAt), orDash(r.FinishedAt), recordNote(r))
	}
	return tw.Flush()
}

// periodRange turns --from and --to dates into List's bounds: every
// period key of a date starts with it, and --to's date is included.
func periodRange(fromFlag, toFlag string) (from, to string, err error) {
	if fromFlag != "" {
		d, err := dstsafe.ParseDate(fromFlag)
		if err != nil {
			return "", "", usagef("bad --from %q: want a civil date such as 2024-11-01", fromFlag)
		}
		from = d.String()
	}
	if toFlag != "" {
		d, err := dstsafe.ParseDate(toFlag)
		if err != nil {
			return "", "", usagef("bad --to %q: want a civil date such as 2024-11-30", toFlag)
		}
		to = d.AddDays(1).String()
	}
	if from != "" && to != "" && from >= to {
		return "", "", usagef("--from %s is after --to %s", fromFlag, toFlag)
	}
	return from, to, nil
}

func rangeNote(f *ledgerFlags, filtered bool) string {
	var s string
	switch {
	case f.from != "" && f.to != "":
		s = " from " + f.from + " to " + f.to
	case f.from != "":
		s = " from " + f.from
	case f.to != "":
		s = " up to " + f.to
	}
	if filtered {
		s += " in state " + f.state
	}
	return s
}

func pauseLine(p dstsafe.Pause) string {
	switch {
	case p.Paused:
		return "paused since " + utc(p.Since) + " by " + p.By + because(p.Reason)
	case !p.Since.IsZero():
		return "not paused (resumed " + utc(p.Since) + " by " + p.By + because(p.Reason) + ")"
	}
	return "not paused"
}

func because(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

func orDash(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return utc(t)
}

// recordNote is a record's NOTE column: its reason, its lease, its release.
func recordNote(r dstsafe.Record) string {
	var parts []string
	switch r.State {
	case dstsafe.StateRunning:
		parts = append(parts, "lease until "+utc(r.LeaseUntil))
	case dstsafe.StateAbandoned:
		parts = append(parts, "lease ended "+utc(r.LeaseUntil))
	}
	if r.Reason != "" {
		parts = append(parts, r.Reason)
	}
	switch {
	case r.Released:
		parts = append(parts, "released by "+r.ReleasedBy+because(r.ReleaseReason))
	case r.ReleasedBy != "":
		parts = append(parts, "retry by "+r.ReleasedBy+because(r.ReleaseReason))
	}
	return strings.Join(parts, "; ")
}

func ledgerShow(c *cmdContext, l dstsafe.ControlLedger, _ *ledgerFlags, job, period string) error {
	r, err := l.Get(context.Background(), job, period)
	if errors.Is(err, dstsafe.ErrNotFound) {
		hint := ""
		if info, _ := registrationOf(context.Background(), l, job); info != nil && info.PeriodKey == "date" && len(period) > len("2006-01-02") {
			// A ByDate job's periods are dates, whatever instant ran them.
			hint = fmt.Sprintf("; %s keys its periods by date: try %s", job, period[:len("2006-01-02")])
		}
		return refused(c, "%s %s: no record (never claimed)%s", job, period, hint)
	}
	if err != nil {
		return err
	}
	return printRecord(c, "", r)
}

// printRecord prints r, after a line saying what was done (text) or as
// the "record" of an object with "action" (JSON).
func printRecord(c *cmdContext, action string, r dstsafe.Record) error {
	if c.json {
		if action == "" {
			return writeJSON(c.stdout, toRecordJSON(r))
		}
		return writeJSON(c.stdout, struct {
			Action string     `json:"action"`
			Record recordJSON `json:"record"`
		}{action, toRecordJSON(r)})
	}
	tw := newTable(c.stdout)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("job", r.Job)
	row("period", r.Period)
	row("state", r.State.String())
	row("owner", r.Owner)
	row("attempt", fmt.Sprint(r.Attempt))
	row("token", fmt.Sprint(r.Token))
	row("started", utc(r.StartedAt))
	row("finished", orDash(r.FinishedAt))
	if r.State == dstsafe.StateRunning || r.State == dstsafe.StateAbandoned {
		row("lease until", utc(r.LeaseUntil))
	}
	if r.Reason != "" {
		row("reason", r.Reason)
	}
	switch {
	case r.Released:
		row("released", "by "+r.ReleasedBy+because(r.ReleaseReason)+" (the next claim takes it over)")
	case r.ReleasedBy != "":
		row("released", "by "+r.ReleasedBy+because(r.ReleaseReason)+" (taken over since)")
	}
	if r.Schedule != "" {
		row("schedule", r.Schedule)
	}
	return tw.Flush()
}

func ledgerRetry(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job, period string) error {
	r, err := l.Release(context.Background(), job, period, f.by, f.reason)
	var ce *dstsafe.ClaimedError
	switch {
	case errors.Is(err, dstsafe.ErrNotFound):
		return refused(c, "%s %s: no record (never claimed): nothing to retry; a scheduler runs it when it is due", job, period)
	case errors.As(err, &ce):
		return refused(c, "%s %s is %s (owner %s, attempt %d): only a failed or abandoned period can be retried",
			job, period, ce.Existing.State, ce.Existing.Owner, ce.Existing.Attempt)
	case err != nil:
		return err
	}
	if !c.json {
		fmt.Fprintf(c.stdout, "%s %s: released by %s; the next claim (RunNow, Backfill or a catch-up) takes it over once, whatever the job's retry policy\n\n",
			job, period, f.by)
	}
	return printRecord(c, "released", r)
}

func ledgerSkip(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job, period string) error {
	ctx := context.Background()
	cur, err := l.Get(ctx, job, period)
	switch {
	case errors.Is(err, dstsafe.ErrNotFound):
	case err != nil:
		return err
	case cur.State == dstsafe.StateSkipped:
		if !c.json {
			fmt.Fprintf(c.stdout, "%s %s: already skipped\n\n", job, period)
		}
		return printRecord(c, "already skipped", cur)
	case cur.State == dstsafe.StateFailed || cur.State == dstsafe.StateAbandoned:
		if _, err := l.Release(ctx, job, period, f.by, "to skip it: "+f.reason); err != nil {
			return skipRefused(c, job, period, err)
		}
	default:
		return refused(c, "%s %s is %s (owner %s, attempt %d): only a period without a record, or a failed or abandoned one, can be skipped",
			job, period, cur.State, cur.Owner, cur.Attempt)
	}
	// The claim, as the operator; a release lets it take the failed or
	// abandoned attempt over.
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: f.by})
	if err != nil {
		return skipRefused(c, job, period, err)
	}
	r, err = l.Finish(ctx, job, period, r.Token, dstsafe.StateSkipped, f.reason)
	if err != nil {
		return err
	}
	if !c.json {
		fmt.Fprintf(c.stdout, "%s %s: skipped by %s; no scheduler runs it\n\n", job, period, f.by)
	}
	return printRecord(c, "skipped", r)
}

// skipRefused reports a skip that lost its period to someone else
// between its read and its write.
func skipRefused(c *cmdContext, job, period string, err error) error {
	var ce *dstsafe.ClaimedError
	if errors.As(err, &ce) {
		return refused(c, "%s %s is %s (owner %s, attempt %d) since the skip began: not skipped",
			job, period, ce.Existing.State, ce.Existing.Owner, ce.Existing.Attempt)
	}
	return err
}

func ledgerPause(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job, _ string) error {
	return setPause(c, l, f, job, dstsafe.Pause{Paused: true, By: f.by, Reason: f.reason})
}

func ledgerResume(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job, _ string) error {
	return setPause(c, l, f, job, dstsafe.Pause{By: f.by, Reason: f.reason})
}

func setPause(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job string, p dstsafe.Pause) error {
	ctx := context.Background()
	before, err := l.GetPause(ctx, job)
	if err != nil {
		return err
	}
	after, err := l.SetPause(ctx, job, p) // stamped by the store's clock (runLedger)
	if err != nil {
		return err
	}
	changed := before.Paused != after.Paused
	if c.json {
		return writeJSON(c.stdout, struct {
			Job     string    `json:"job"`
			Changed bool      `json:"changed"`
			Pause   pauseJSON `json:"pause"`
		}{job, changed, toPauseJSON(after)})
	}
	switch {
	case changed && after.Paused:
		fmt.Fprintf(c.stdout, "%s: paused by %s; every scheduler on this ledger skips its periods until it is resumed\n", job, after.By)
	case changed:
		fmt.Fprintf(c.stdout, "%s: resumed by %s\n", job, after.By)
	case after.Paused:
		fmt.Fprintf(c.stdout, "%s: already %s; nothing changed\n", job, pauseLine(after))
	default:
		fmt.Fprintf(c.stdout, "%s: %s; nothing to resume\n", job, pauseLine(after))
	}
	return nil
}

// recordJSON is a Record for --json output.
type recordJSON struct {
	Job           string `json:"job"`
	Period        string `json:"period"`
	State         string `json:"state"`
	Owner         string `json:"owner"`
	Attempt       int    `json:"attempt"`
	Token         int64  `json:"token"`
	StartedAt     string `json:"started_at"`
	FinishedAt    string `json:"finished_at,omitempty"`
	LeaseUntil    string `json:"lease_until"`
	Reason        string `json:"reason,omitempty"`
	Released      bool   `json:"released"`
	ReleasedBy    string `json:"released_by,omitempty"`
	ReleaseReason string `json:"release_reason,omitempty"`
	Schedule      string `json:"schedule,omitempty"`
}

func toRecordJSON(r dstsafe.Record) recordJSON {
	j := recordJSON{
		Job: r.Job, Period: r.Period, State: r.State.String(), Owner: r.Owner, Attempt: r.Attempt, Token: r.Token,
		StartedAt: exact(r.StartedAt), LeaseUntil: exact(r.LeaseUntil), Reason: r.Reason,
		Released: r.Released, ReleasedBy: r.ReleasedBy, ReleaseReason: r.ReleaseReason, Schedule: r.Schedule,
	}
	if !r.FinishedAt.IsZero() {
		j.FinishedAt = exact(r.FinishedAt)
	}
	return j
}

// pauseJSON is a Pause for --json output.
type pauseJSON struct {
	Paused bool   `json:"paused"`
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
	Since  string `json:"since,omitempty"`
}

func toPauseJSON(p dstsafe.Pause) pauseJSON {
	j := pauseJSON{Paused: p.Paused, By: p.By, Reason: p.Reason}
	if !p.Since.IsZero() {
		j.Since = exact(p.Since)
	}
	return j
}

// exact formats a ledger instant for JSON: RFC 3339 in UTC, with the
// microseconds ledgers keep.
func exact(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
