package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"text/template"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
)

var execCmd = &command{
	name:    "exec",
	summary: "run a command once per period of a schedule, whatever triggers it",
	usage: `Usage: dstsafe exec --ledger URL --job NAME [--schedule SPEC] [flags] -- COMMAND [ARG...]

Runs COMMAND at most once per logical period of the job's schedule,
however many times and from however many machines it is triggered: a
Kubernetes CronJob, a systemd timer, a crontab line, a CI schedule. It
works out which period this trigger stands for, claims that period in the
ledger, runs COMMAND with the period's fields, heartbeats the claim while
COMMAND runs, and records how it ended. A second trigger of the same
period (a CronJob that fires twice at a fall-back night, a retried pod,
two replicas of a timer) finds the period claimed and runs nothing.

The schedule is the job's, as the ledger's job registry holds it: an
in-process dstsafe Scheduler registers each job it runs (spec, zone, fold
and gap policies, period key), and exec then keys every period exactly as
the Scheduler does, ByDate jobs included ("2024-11-03", not
"2024-11-03T01:30:00"), so a job can move between the two. Without
--schedule exec runs the registered schedule (a job never registered is an
error, exit 2). A --schedule that is not the registered one is an error
(exit 2) naming both; one for a job not registered yet registers it.
Without --key a --schedule takes the registered period key.

The period is the latest occurrence at or before now, at most --misfire
ago; or, when the trigger says when it was scheduled (--scheduled-time,
DSTSAFE_SCHEDULED_TIME, or a CronJob's Job name by --k8s-job-name), the
occurrence at that instant. A scheduled time that is the second reading
of a wall time the schedule fires once (the second 01:30 of a fall-back
night) stands for the first reading's period; any other instant that is
not an occurrence is an error (exit 2): the trigger's schedule or zone
(a CronJob's spec.timeZone) and exec's disagree. With nothing due, exec
says so and exits 0 within 6 hours of a transition of the schedule's
zone (the second 01:30 of a fall-back night, a trigger right after a
gap); anywhere else nothing due is an error (exit 2) for the same
reason, unless --poll.

A job paused in the ledger (dstsafe ledger pause) does not run: exec
records the period as skipped ("paused"), as a Scheduler replica does,
says so, and exits --exit-skipped (default 0).

The job's registered limits (a Scheduler's WithBounds and WithMaxRuns)
hold for exec too, for every period a trigger stands for (by now,
--scheduled-time or Job name). A period due before the start bound or
after the end bound (both included) is not run and not recorded: exec
says so, naming the period, its instant and the bound, and exits
--exit-skipped. Under max runs a run holds one of the job's run slots,
shared with the Scheduler (job JOB/max-runs); with every slot succeeded
or held the period is recorded skipped ("max runs: the job has used its
runs") and exec exits --exit-skipped. A failed run frees its slot.

SPEC is read as by 'dstsafe next': five fields (six with --seconds), a
CRON_TZ=Zone prefix (else UTC). A fixed-time job (30 1 * * *) fires once
at a fall-back night, at the first 01:30, and once at a spring-forward
night, shifted by the gap (02:30 runs at 03:30); its period is the
scheduled wall reading (2024-11-03T01:30:00), or its date with --key date.

COMMAND is run directly (no shell). Its arguments may hold Go template
fields, filled in for the period: {{.Job}} {{.Period}} {{.RunDate}}
(2024-11-03) {{.Due}} (RFC 3339 in the schedule's zone) {{.Wall}}
{{.Kind}} {{.Attempt}} {{.Token}} {{.Owner}} {{.IdempotencyKey}}. Its
environment has the same as DSTSAFE_JOB, DSTSAFE_PERIOD,
DSTSAFE_RUN_DATE, DSTSAFE_DUE, DSTSAFE_WALL, DSTSAFE_KIND,
DSTSAFE_ATTEMPT, DSTSAFE_TOKEN, DSTSAFE_OWNER and DSTSAFE_IDEMPOTENCY_KEY.
The idempotency key is JOB/PERIOD (billing/2024-11-03T01:30:00), the same
for every attempt of the period: pass it to systems that deduplicate
writes. SIGTERM and SIGINT are forwarded to COMMAND.

Flags:
  --ledger URL          the ledger (default $DSTSAFE_LEDGER):
                        sqlite:///abs/path.db or sqlite:rel/path.db,
                        postgres://user@host/db (or postgresql://),
                        redis://host:port/db
  --table NAME          SQL table (default dstsafe_job_runs)
  --prefix P            Redis key prefix (default dstsafe:)
  --migrate             create or upgrade the SQL ledger's schema first
                        (and a missing SQLite file); safe when many
                        triggers start at once on a fresh database; else
                        a ledger no service ever migrated is an error
  --job NAME            the job's name in the ledger (required)
  --schedule SPEC       the job's schedule, with its zone
                        (CRON_TZ=America/Chicago 30 1 * * *); default:
                        the one registered in the ledger
  --key K               wall or date (WithPeriodKey(ByDate)): the
                        --schedule's period key (default: the registered
                        one, else wall)
  --fold P              auto, first, last or both (default auto)
  --gap P               auto, shift, at-transition or skip (default auto)
  --seconds             SPEC starts with a seconds field
  --misfire D           how late a trigger may be and still stand for the
                        occurrence before it (default 10m)
  --poll                the trigger fires more often than the schedule on
                        purpose: nothing due is never an error
  --scheduled-time T    the instant the trigger was scheduled for, RFC 3339
                        (default $DSTSAFE_SCHEDULED_TIME; empty: use now)
  --k8s-job-name NAME   the pod's Job name (default $DSTSAFE_K8S_JOB_NAME,
                        from the pod label batch.kubernetes.io/job-name):
                        a CronJob names its Jobs NAME-M, M the scheduled
                        minute since 1970 UTC, which stands for
                        --scheduled-time when that is not given; an M
                        that is not an occurrence is an error (exit 2); a
                        name not of that form or more than 400 days from
                        now (a Job created by hand) is not a CronJob's:
                        exec goes by now
  --owner NAME          who claims, recorded in the ledger (default
                        hostname:pid)
  --lease D             the claim's lease, heartbeated every third of it
                        while COMMAND runs (default 1m)
  --max-clock-offset D  refuse to claim (exit 125) when this host's clock
                        is more than D off the ledger's (default 5s)
  --max-attempts N      attempts a period may have in all, the first
                        included (default 1: never taken over)
  --retry-failed        let a trigger take over a period that failed
  --retry-abandoned     let a trigger take over a period whose holder
                        stopped heartbeating (crashed, killed)
  --exit-claimed N      exit status when the period was already claimed
                        (default 0)
  --exit-skipped N      exit status when the period is not run on purpose:
                        the job is paused or has used its max runs (the
                        period recorded skipped), or the period is outside
                        the job's bounds (not recorded) (default 0)
  --now T               pretend now is T (RFC 3339), time passing from
                        there (default $DSTSAFE_NOW): for tests and
                        replays of a past night only
  --zoneinfo DIR        read zones from DIR

Exit status: COMMAND's own when it ran (128+N when signal N killed it);
0 also when nothing was due near a transition, the period was already
claimed (or --exit-claimed N), or the job is paused, has used its max
runs or the period is outside its bounds (or --exit-skipped N); 2 bad
arguments (a bad SPEC, URL or template), a schedule that is not the
registered one, a job not registered and no --schedule, a scheduled
time or Job name that is not an occurrence, nothing due away from a
transition; 124 the claim was lost while COMMAND ran (taken over
after the lease ran out): COMMAND was sent SIGTERM; 125 the ledger could
not be opened or claimed in, or this host's clock is off the ledger's
(COMMAND not run), or COMMAND's result could not be recorded; 126
COMMAND could not be started (a directory, a file without execute
permission); 127 COMMAND not found. dstsafe exec's own lines go to
stderr.

Examples:
  dstsafe exec --ledger sqlite:///var/lib/billing/ledger.db --job billing \
    --schedule 'CRON_TZ=America/Chicago 30 1 * * *' -- ./bill --date '{{.RunDate}}'
  DSTSAFE_LEDGER=postgres://billing@db/billing dstsafe exec --job billing/America/Chicago \
    -- /app/bill --date '{{.RunDate}}' --key '{{.IdempotencyKey}}'
`,
	run: runExec,
}

// Exit statuses of exec's own failures, as timeout(1) and env(1) use them.
const (
	exitLeaseLost   = 124
	exitLedger      = 125
	exitCannotStart = 126
	exitNotFound    = 127
)

// defaultMisfire is --misfire's default: longer than a CronJob's usual
// lateness (the controller's 10 s loop, scheduling, an image pull) and a
// systemd timer's AccuracySec, shorter than the hour between the two
// readings of a fall-back night.
const defaultMisfire = 10 * time.Minute

// ledgerTimeout bounds opening the ledger and each call to it that is
// not a heartbeat.
const ledgerTimeout = 30 * time.Second

// killGrace is how long a command sent SIGTERM because its claim was lost
// has before SIGKILL.
const killGrace = 10 * time.Second

type execFlags struct {
	ledger                      string
	lf                          ledgerFlags
	job, schedule, key          string
	sf                          scheduleFlags
	poll                        bool
	misfire                     time.Duration
	scheduledTime               string
	k8sJob                      string
	owner                       string
	lease                       time.Duration
	maxClockOffset              time.Duration
	maxAttempts                 int
	retryFailed, retryAbandoned bool
	exitClaimed, exitSkipped    int
	now                         string
}

func runExec(c *cmdContext, args []string) error {
	// Everything after "--" is the command's, flags included.
	flagArgs, command := args, []string(nil)
	for i, a := range args {
		if a == "--" {
			flagArgs, command = args[:i], args[i+1:]
			break
		}
	}
	f := &execFlags{}
	c.fs.StringVar(&f.ledger, "ledger", os.Getenv("DSTSAFE_LEDGER"), "")
	c.fs.StringVar(&f.lf.table, "table", "", "")
	c.fs.StringVar(&f.lf.prefix, "prefix", "", "")
	c.fs.BoolVar(&f.lf.migrate, "migrate", false, "")
	c.fs.StringVar(&f.job, "job", "", "")
	c.fs.StringVar(&f.schedule, "schedule", "", "")
	c.fs.StringVar(&f.key, "key", "", "")
	c.fs.BoolVar(&f.poll, "poll", false, "")
	c.fs.StringVar(&f.sf.fold, "fold", "auto", "")
	c.fs.StringVar(&f.sf.gap, "gap", "auto", "")
	c.fs.BoolVar(&f.sf.seconds, "seconds", false, "")
	c.fs.DurationVar(&f.misfire, "misfire", defaultMisfire, "")
	c.fs.StringVar(&f.scheduledTime, "scheduled-time", os.Getenv("DSTSAFE_SCHEDULED_TIME"), "")
	c.fs.StringVar(&f.k8sJob, "k8s-job-name", os.Getenv("DSTSAFE_K8S_JOB_NAME"), "")
	c.fs.StringVar(&f.owner, "owner", "", "")
	c.fs.DurationVar(&f.lease, "lease", dstsafe.DefaultLease, "")
	c.fs.DurationVar(&f.maxClockOffset, "max-clock-offset", 5*time.Second, "")
	c.fs.IntVar(&f.maxAttempts, "max-attempts", 1, "")
	c.fs.BoolVar(&f.retryFailed, "retry-failed", false, "")
	c.fs.BoolVar(&f.retryAbandoned, "retry-abandoned", false, "")
	c.fs.IntVar(&f.exitClaimed, "exit-claimed", 0, "")
	c.fs.IntVar(&f.exitSkipped, "exit-skipped", 0, "")
	c.fs.StringVar(&f.now, "now", os.Getenv("DSTSAFE_NOW"), "")
	if _, err := c.parse(flagArgs, 0, 0); err != nil {
		if command == nil && !errors.Is(err, flag.ErrHelp) {
			var ue *usageError
			if errors.As(err, &ue) && strings.HasPrefix(ue.msg, "unexpected argument") {
				return usagef("%s: put the command after --", ue.msg)
			}
		}
		return err
	}
	x, err := prepareExec(c, f, command)
	if err != nil {
		return err
	}
	return x.run()
}

// execRun is one trigger's run: what prepareExec worked out from the
// flags, before any ledger is touched.
type execRun struct {
	c       *cmdContext
	f       *execFlags
	clock   clockwork.Clock
	cron    *dstsafe.Cron // --schedule's, else the registered one (identify)
	fp      string        // cron's fingerprint, recorded with the claim
	occ     dstsafe.Occurrence
	due     bool
	path    string // COMMAND, looked up
	argTmpl []*template.Template
	owner   string
	limits  dstsafe.JobLimits // the registered ones (identify, exec_limits.go)
	slot    *dstsafe.Record   // the run slot held under limits.MaxRuns
}

func prepareExec(c *cmdContext, f *execFlags, command []string) (*execRun, error) {
	switch {
	case c.json:
		return nil, usagef("exec takes no --json: stdout is the command's, and exec's own lines go to stderr")
	case f.ledger == "":
		return nil, usagef("missing --ledger (or DSTSAFE_LEDGER): %s", ledgerURLForms)
	case f.job == "":
		return nil, usagef("missing --job: the job's name in the ledger")
	case len(command) == 0:
		return nil, usagef("missing COMMAND after --")
	case f.misfire < 0:
		return nil, usagef("bad --misfire %s: negative", f.misfire)
	case f.maxClockOffset <= 0:
		return nil, usagef("bad --max-clock-offset %s: want a positive duration such as 5s", f.maxClockOffset)
	case f.lease <= 0:
		return nil, usagef("bad --lease %s: want a positive duration such as 1m", f.lease)
	case f.maxAttempts < 0:
		return nil, usagef("bad --max-attempts %d: negative", f.maxAttempts)
	case f.exitClaimed < 0 || f.exitClaimed > 255:
		return nil, usagef("bad --exit-claimed %d: want 0-255", f.exitClaimed)
	case f.exitSkipped < 0 || f.exitSkipped > 255:
		return nil, usagef("bad --exit-skipped %d: want 0-255", f.exitSkipped)
	case f.key != "" && f.key != "wall" && f.key != "date":
		return nil, usagef("bad --key %q: want wall (a period per wall reading) or date (one per civil date, WithPeriodKey(ByDate))", f.key)
	case f.schedule == "" && (f.key != "" || f.sf.seconds || f.sf.fold != "auto" || f.sf.gap != "auto"):
		return nil, usagef("--key, --fold, --gap and --seconds qualify --schedule: without it the job's registered schedule is used as it is")
	case (f.retryFailed || f.retryAbandoned) && f.maxAttempts < 2:
		return nil, usagef("--retry-failed and --retry-abandoned need --max-attempts 2 or more (attempts in all, the first included)")
	}
	if err := parseLedgerURL(f.ledger, &f.lf); err != nil {
		return nil, err
	}
	x := &execRun{c: c, f: f, clock: clockwork.NewRealClock()}
	if f.now != "" {
		at, err := time.Parse(time.RFC3339Nano, f.now)
		if err != nil {
			return nil, usagef("bad --now %q: want RFC 3339 (2024-11-03T06:30:00Z)", f.now)
		}
		oc := newOffsetClock(at)
		x.clock = oc
		c.now = oc.Now // the ledger's clock too
	} else {
		c.now = x.clock.Now
		c.storeClock = true
	}
	if f.schedule != "" {
		var key dstsafe.PeriodKey
		if f.key != "" {
			_ = key.UnmarshalText([]byte(f.key)) // checked above
		}
		cr, _, err := c.parseSchedule(f.schedule, &f.sf, dstsafe.WithPeriodKey(key))
		if err != nil {
			return nil, err
		}
		x.cron = cr
	}
	if f.scheduledTime != "" {
		if _, err := time.Parse(time.RFC3339Nano, f.scheduledTime); err != nil {
			return nil, usagef("bad --scheduled-time %q: want RFC 3339 (2024-11-03T01:30:00-05:00)", f.scheduledTime)
		}
	}
	x.owner = f.owner
	if x.owner == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "unknown-host"
		}
		x.owner = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	for i, a := range command {
		t, err := template.New(fmt.Sprintf("argument %d", i+1)).Option("missingkey=error").Parse(a)
		if err == nil {
			// A field that is not one of periodFields fails here, before
			// anything is claimed, not after.
			err = t.Execute(discard{}, periodFields{})
		}
		if err != nil {
			return nil, usagef("bad COMMAND argument %q: %v", a, err)
		}
		x.argTmpl = append(x.argTmpl, t)
	}
	x.path = command[0]
	return x, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// say prints one of exec's own lines on stderr.
func (x *execRun) say(format string, args ...any) {
	fmt.Fprintf(x.c.stderr, "dstsafe exec: "+format+"\n", args...)
}

// fail prints a line and ends with code.
func (x *execRun) fail(code int, format string, args ...any) error {
	x.say(format, args...)
	return &exitError{code}
}

func (x *execRun) run() error {
	f := x.f
	if x.cron != nil {
		// With --schedule a trigger with nothing due never opens the
		// ledger: the cheapest answer to the commonest extra trigger.
		if err := x.findPeriod(); err != nil {
			return err
		}
		if !x.due {
			return x.nothingDue()
		}
	}
	path, err := exec.LookPath(x.path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR) {
			// A directory or a file without execute permission: 126, as
			// sh and env(1) say.
			return x.fail(exitCannotStart, "cannot run %s: %v; nothing claimed", x.path, err)
		}
		return x.fail(exitNotFound, "command %s not found: %v; nothing claimed", x.path, err)
	}

	// go-redis logs each failed dial on its own; exec says what failed once.
	redis.SetLogger(quietRedis{})
	// Signals from here on are exec's to handle: one that comes before
	// COMMAND starts ends a claimed period failed, not abandoned.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	l, closeLedger, err := x.openLedger(ctx)
	cancel()
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return err
		}
		return x.fail(exitLedger, "ledger %s: %v; nothing run", redactURL(f.ledger), err)
	}
	defer closeLedger()
	select {
	case sig := <-sigs:
		// Stopped while the ledger was opening: nothing claimed yet.
		return x.fail(128+signalNumber(sig), "%s before the claim; nothing claimed, nothing run", sigName(sig))
	default:
	}
	fromFlag := x.cron
	if err := x.identify(l); err != nil {
		return err
	}
	if x.cron != fromFlag || !x.due {
		// The registered schedule, or --schedule under the registered
		// period key: the period of the same instant, keyed as the
		// Scheduler keys it.
		if err := x.findPeriod(); err != nil {
			return err
		}
		if !x.due {
			return x.nothingDue()
		}
	}
	if done, err := x.gate(l); done {
		return err
	}

	req := dstsafe.ClaimRequest{
		Job: f.job, Period: x.occ.Period, Owner: x.owner, Lease: f.lease,
		Retry: dstsafe.RetryPolicy{MaxAttempts: f.maxAttempts, Failed: f.retryFailed, Abandoned: f.retryAbandoned},
		// The ledger refuses the claim if this host's clock is more than
		// --max-clock-offset off the store's: its "now" would pick the
		// wrong period or judge leases wrongly.
		Now: x.clock.Now(), MaxClockOffset: f.maxClockOffset,
		Schedule: x.fp,
	}
	ctx, cancel = context.WithTimeout(context.Background(), ledgerTimeout)
	rec, err := l.Claim(ctx, req)
	cancel()
	var ce *dstsafe.ClaimedError
	switch {
	case errors.As(err, &ce):
		e := ce.Existing
		x.say("job %s period %s already claimed by %s at %s (state %s, attempt %d); nothing run",
			f.job, x.occ.Period, e.Owner, e.StartedAt.UTC().Format(time.RFC3339), e.State, e.Attempt)
		if f.exitClaimed != 0 {
			return &exitError{f.exitClaimed}
		}
		return nil
	case errors.Is(err, dstsafe.ErrClockSkew):
		return x.fail(exitLedger, "this host's clock disagrees with the ledger's (fix its time sync): %v; nothing run", err)
	case errors.Is(err, dstsafe.ErrInvalidArgument):
		return usagef("%v", err)
	case err != nil:
		return x.fail(exitLedger, "claiming job %s period %s: %v; nothing run", f.job, x.occ.Period, err)
	}
	if done, err := x.takeSlot(l, rec); done {
		return err
	}

	fields := fieldsOf(f.job, x.occ, rec)
	argv := make([]string, len(x.argTmpl))
	for i, t := range x.argTmpl {
		var b strings.Builder
		if err := t.Execute(&b, fields); err != nil {
			return x.finishNotRun(l, rec, exitCannotStart, fmt.Sprintf("bad argument %d: %v", i+1, err))
		}
		argv[i] = b.String()
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = append(os.Environ(), fields.env()...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, x.c.stdout, x.c.stderr

	select {
	case sig := <-sigs:
		return x.finishNotRun(l, rec, 128+signalNumber(sig), fmt.Sprintf("%s before %s started; not run", sigName(sig), x.path))
	default:
	}
	if err := cmd.Start(); err != nil {
		return x.finishNotRun(l, rec, exitCannotStart, fmt.Sprintf("cannot start %s: %v", x.path, err))
	}

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	hbCtx, stopHB := context.WithCancel(context.Background())
	lost := make(chan error, 2)
	go func() {
		lost <- keepLease(hbCtx, x.clock, l, rec, f.lease, func(err error) {
			x.say("heartbeat of job %s period %s failed, retrying at the next beat: %v", f.job, x.occ.Period, err)
		})
	}()
	x.keepSlot(hbCtx, l, lost)

	var (
		forwarded os.Signal
		lostErr   error
		waitErr   error
		killTimer <-chan time.Time
	)
wait:
	for {
		select {
		case waitErr = <-waited:
			break wait
		case s := <-sigs:
			forwarded = s
			_ = cmd.Process.Signal(s)
		case err := <-lost:
			if err == nil {
				continue
			}
			lostErr = err
			x.say("lost the claim of job %s period %s while %s ran (%v): someone took the period over; sending SIGTERM", f.job, x.occ.Period, x.path, err)
			_ = cmd.Process.Signal(syscall.SIGTERM)
			killTimer = x.clock.After(killGrace)
		case <-killTimer:
			_ = cmd.Process.Kill()
		}
	}
	stopHB()
	if lostErr != nil {
		x.releaseSlot(l, "claim lost: "+lostErr.Error())
		return &exitError{exitLeaseLost}
	}

	code, how := exitStatus(cmd.ProcessState, waitErr)
	if forwarded != nil {
		how += fmt.Sprintf(" (after dstsafe exec forwarded %s)", sigName(forwarded))
	}
	state := dstsafe.StateSucceeded
	if code != 0 {
		state = dstsafe.StateFailed
	}
	state, how, code = x.countRun(l, state, how, code)
	ctx, cancel = context.WithTimeout(context.Background(), ledgerTimeout)
	_, err = l.Finish(ctx, f.job, x.occ.Period, rec.Token, state, how)
	cancel()
	switch {
	case errors.Is(err, dstsafe.ErrLeaseLost):
		return x.fail(exitLeaseLost, "lost the claim of job %s period %s before recording it %s (%s): someone took the period over", f.job, x.occ.Period, state, how)
	case err != nil:
		return x.fail(exitLedger, "recording job %s period %s as %s (%s) failed: %v; the claim stays running until its lease ends, then abandoned", f.job, x.occ.Period, state, how, err)
	}
	if code != 0 {
		return &exitError{code}
	}
	return nil
}

// finishNotRun records a claimed period whose command never started as
// failed, and ends with code.
func (x *execRun) finishNotRun(l dstsafe.ControlLedger, rec dstsafe.Record, code int, reason string) error {
	x.releaseSlot(l, reason)
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	defer cancel()
	if _, err := l.Finish(ctx, rec.Job, rec.Period, rec.Token, dstsafe.StateFailed, reason); err != nil {
		x.say("recording job %s period %s as failed: %v", rec.Job, rec.Period, err)
	}
	return x.fail(code, "%s", reason)
}

// exitStatus is the exit status exec passes on for a finished command,
// and how it ended in words for the ledger's Reason: "exit status 3" or
// "killed by signal terminated" (status 128+15, as a shell reports it).
func exitStatus(ps *os.ProcessState, waitErr error) (int, string) {
	if ps == nil {
		return exitCannotStart, fmt.Sprintf("wait failed: %v", waitErr)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), fmt.Sprintf("killed by signal %s (exit status %d)", sigName(ws.Signal()), 128+int(ws.Signal()))
	}
	return ps.ExitCode(), fmt.Sprintf("exit status %d", ps.ExitCode())
}

// signalNumber is sig's number, for the 128+N exit status.
func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 0
}

type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return s.String()
}

// openLedger opens the ledger --ledger names. With --migrate a missing
// SQLite file is created (the ledger commands never create one).
func (x *execRun) openLedger(ctx context.Context) (dstsafe.ControlLedger, func(), error) {
	lf := &x.f.lf
	if lf.sqlite != "" {
		_, err := os.Stat(lf.sqlite)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("SQLite file: %w", err)
		}
		if err != nil {
			if !lf.migrate {
				return nil, nil, fmt.Errorf("no SQLite file %s (--migrate creates it)", lf.sqlite)
			}
			fh, err := os.OpenFile(lf.sqlite, os.O_RDWR|os.O_CREATE, 0o600)
			if err != nil {
				return nil, nil, fmt.Errorf("creating the SQLite file: %w", err)
			}
			fh.Close()
		}
	}
	return openLedger(ctx, x.c, lf)
}

// redactURL hides a password in a ledger URL for messages.
func redactURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	auth, host, ok := strings.Cut(rest, "@")
	if !ok {
		return raw
	}
	if user, _, hasPass := strings.Cut(auth, ":"); hasPass {
		return scheme + "://" + user + ":xxxxx@" + host
	}
	return raw
}
