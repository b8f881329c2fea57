package dstsaferiver

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/dstsafe/dstsafe"
)

// ArgsKey is the key under which every job this package inserts carries its
// Period in its encoded args, beside the fields of the job's own args
// (which must encode as a JSON object without that key).
const ArgsKey = "dstsafe"

// Period is the logical period a river job was inserted for: the ledger key
// (Job, Period) and what the schedule said about the occurrence. Its Job and
// Period fields, and only those, make the job's unique key, so one period is
// one river job for as long as that job's row lives, whatever the time of
// the insert.
type Period struct {
	// Job is the job's name in the ledger (Options.Name).
	Job string `json:"job" river:"unique"`
	// Period is the occurrence's ledger key ("2024-11-03T01:30:00", with
	// ";fold=1" for the second reading of a repeated wall time; with
	// dstsafe.ByDate, "2024-11-03").
	Period string `json:"period" river:"unique"`
	// Wall is the wall reading the occurrence was scheduled for, in the
	// schedule's zone: 02:30 even when a gap moved it to 03:30 CDT.
	Wall string `json:"wall"`
	// Kind is how Wall resolved: "unique", "fold" or "gap".
	Kind dstsafe.Kind `json:"kind"`
	// Due is the instant the occurrence was due, with the schedule zone's
	// offset (RFC 3339).
	Due time.Time `json:"due"`
	// RunDate is the business date of the period: the date of Wall.
	RunDate dstsafe.Date `json:"run_date"`
}

// PeriodFor returns the Period of occurrence o of job.
func PeriodFor(job string, o dstsafe.Occurrence) Period {
	return Period{
		Job:     job,
		Period:  o.Period,
		Wall:    o.Wall.String(),
		Kind:    o.Kind,
		Due:     o.At,
		RunDate: dstsafe.Date{Year: o.Wall.Year, Month: o.Wall.Month, Day: o.Wall.Day},
	}
}

// run is the dstsafe.Run a worker hands its work for attempt rec.
func (p Period) run(rec dstsafe.Record) (dstsafe.Run, error) {
	w, err := dstsafe.ParseWall(p.Wall)
	if err != nil {
		return dstsafe.Run{}, fmt.Errorf("dstsaferiver: job %s period %s: wall %q: %w", p.Job, p.Period, p.Wall, err)
	}
	return dstsafe.Run{
		Job: p.Job, Period: p.Period, Wall: w, Kind: p.Kind, Due: p.Due,
		RunDate: p.RunDate, Attempt: rec.Attempt, Token: rec.Token,
	}, nil
}

// ErrNoPeriod: a job a dstsaferiver worker was given carries no Period in
// its args (it was inserted without ForPeriod or NewPeriodicJob), so there
// is no period to claim. The worker cancels such a job rather than run it
// unguarded.
var ErrNoPeriod = errors.New("dstsaferiver: job has no period")

// PeriodOf reads the Period a job was inserted with. It fails with an error
// wrapping ErrNoPeriod when the job carries none, or when the Period is
// incomplete (no job name or period key).
func PeriodOf(job *rivertype.JobRow) (Period, error) {
	var envelope struct {
		Period *Period `json:"dstsafe"`
	}
	if err := json.Unmarshal(job.EncodedArgs, &envelope); err != nil {
		return Period{}, fmt.Errorf("%w: job %d (%s): args: %w", ErrNoPeriod, job.ID, job.Kind, err)
	}
	p := envelope.Period
	if p == nil || p.Job == "" || p.Period == "" {
		return Period{}, fmt.Errorf("%w: job %d (%s) has no %q object with job and period in its args", ErrNoPeriod, job.ID, job.Kind, ArgsKey)
	}
	return *p, nil
}

// ForPeriod returns the args and insert options of the job for one period
// of job, exactly as NewPeriodicJob inserts them: args with the Period added
// under ArgsKey, unique by (kind, job, period) in every job state, scheduled
// at the occurrence's instant unless opts says otherwise. Insert them by
// hand (Client.Insert, InsertTx) to enqueue a period outside the schedule:
// river refuses the insert while the period's job row lives
// (JobInsertResult.UniqueSkippedAsDuplicate), and the worker's ledger claim
// runs the period at most once after that. UniqueOpts in opts are replaced.
func ForPeriod(job string, o dstsafe.Occurrence, args river.JobArgs, opts *river.InsertOpts) (river.JobArgs, *river.InsertOpts) {
	if args == nil {
		panic("dstsaferiver: ForPeriod with nil args")
	}
	var io river.InsertOpts
	if opts != nil {
		io = *opts
	}
	if io.ScheduledAt.IsZero() {
		io.ScheduledAt = o.At
	}
	io.UniqueOpts = uniqueOpts()
	return periodArgs{Dstsafe: PeriodFor(job, o), inner: args}, &io
}

// uniqueOpts makes a period's job unique by kind and Period for as long as
// its row exists, in any state: a completed, discarded or cancelled job
// still blocks a second insert of its period until river's job cleaner
// deletes the row (CompletedJobRetentionPeriod and friends).
func uniqueOpts() river.UniqueOpts {
	return river.UniqueOpts{ByArgs: true, ByState: rivertype.JobStates()}
}

// periodArgs is a job's own args with its Period added. It encodes as the
// inner args' JSON object plus the ArgsKey member, so the worker of the
// inner type decodes it unchanged; river reads the `river:"unique"` tags of
// Period through the Dstsafe field for the unique key.
type periodArgs struct {
	Dstsafe Period `json:"dstsafe"`
	inner   river.JobArgs
}

func (a periodArgs) Kind() string { return a.inner.Kind() }

// InsertOpts passes on the inner args' defaults (queue, priority, max
// attempts), so wrapping them changes nothing but the period and
// uniqueness.
func (a periodArgs) InsertOpts() river.InsertOpts {
	if w, ok := a.inner.(river.JobArgsWithInsertOpts); ok {
		return w.InsertOpts()
	}
	return river.InsertOpts{}
}

func (a periodArgs) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(a.inner)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("dstsaferiver: args of kind %q must encode as a JSON object, got %.40s", a.inner.Kind(), raw)
	}
	if _, taken := fields[ArgsKey]; taken {
		return nil, fmt.Errorf("dstsaferiver: args of kind %q already have a %q member", a.inner.Kind(), ArgsKey)
	}
	p, err := json.Marshal(a.Dstsafe)
	if err != nil {
		return nil, err
	}
	fields[ArgsKey] = p
	return json.Marshal(fields)
}
