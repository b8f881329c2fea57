package dstsafe

import (
	"strconv"
	"time"
)

// Schedule is anything that can say when a job fires next. It is the exact
// shape of robfig/cron's cron.Schedule and river's PeriodicSchedule, so a
// *Cron plugs into both, and their schedules plug into the Scheduler.
//
// Next returns the first instant strictly after its argument at which the
// schedule fires. The zero time.Time means "never": the schedule has no
// firing after that instant.
type Schedule interface {
	Next(after time.Time) time.Time
}

// OccurrenceSchedule is a Schedule that also says which wall reading an
// instant was scheduled for and how to key it in a ledger. *Cron implements
// it; the Scheduler uses it when a schedule offers it.
type OccurrenceSchedule interface {
	Schedule
	// NextOccurrence returns the first occurrence strictly after the
	// argument, or false when there is none.
	NextOccurrence(after time.Time) (Occurrence, bool)
}

// Occurrence is one firing of a schedule.
type Occurrence struct {
	// At is the instant the job fires, in the schedule's zone.
	At time.Time
	// Wall is the wall reading the job was scheduled for. It differs from
	// the reading of At when the scheduled reading fell in a gap: a 02:30
	// job shifted to 03:30 CDT has Wall 02:30.
	Wall Wall
	// Kind is how Wall resolves in the schedule's zone: Unique, Fold (At is
	// one of two readings) or Gap (Wall never happens; At was moved).
	Kind Kind
	// Period is the ledger key for this occurrence: by default Wall.String()
	// ("2024-11-03T01:30:00"), with ";fold=1" appended for the second reading
	// of a repeated wall time when both readings fire (FoldBoth); with
	// ByDate, the wall date alone ("2024-11-03").
	Period string
}

// FoldPolicy says what a schedule does with a wall reading that happens
// twice because the clocks went back. The zero FoldPolicy ("auto", what a
// schedule has unless WithFold says otherwise) is FoldFirst for a
// fixed-time schedule and FoldBoth for a periodic one.
type FoldPolicy uint8

const (
	// foldAuto is the zero value: FoldFirst for a fixed-time schedule,
	// FoldBoth for a periodic one.
	foldAuto FoldPolicy = iota
	// FoldFirst fires once, at the first reading (before the transition).
	FoldFirst
	// FoldLast fires once, at the second reading (after the transition).
	FoldLast
	// FoldBoth fires at both readings: the schedule follows real time.
	FoldBoth
)

// GapPolicy says what a schedule does with a wall reading that never
// happens because the clocks went forward. The zero GapPolicy ("auto",
// what a schedule has unless WithGap says otherwise) is GapShift for a
// fixed-time schedule and GapSkip for a periodic one.
type GapPolicy uint8

const (
	// gapAuto is the zero value: GapShift for a fixed-time schedule,
	// GapSkip for a periodic one.
	gapAuto GapPolicy = iota
	// GapShift fires once, at the wall reading pushed forward by the length
	// of the gap (02:30 -> 03:30 CDT), as RFC 5545 and java.time do.
	GapShift
	// GapAtTransition fires once, at the first instant after the gap
	// (03:00 CDT), as cronie does. Several skipped readings fire once.
	GapAtTransition
	// GapSkip does not fire: the reading does not exist.
	GapSkip
)

// PeriodKey chooses how an Occurrence's Period is derived.
type PeriodKey uint8

const (
	// ByWall keys a period by its scheduled wall reading (the default).
	ByWall PeriodKey = iota
	// ByDate keys a period by the civil date of its scheduled wall reading,
	// for jobs that must run once per local day.
	ByDate
)

// String returns "auto", "first", "last" or "both".
func (p FoldPolicy) String() string {
	switch p {
	case foldAuto:
		return "auto"
	case FoldFirst:
		return "first"
	case FoldLast:
		return "last"
	case FoldBoth:
		return "both"
	}
	return "FoldPolicy(" + strconv.Itoa(int(p)) + ")"
}

// String returns "auto", "shift", "at-transition" or "skip".
func (p GapPolicy) String() string {
	switch p {
	case gapAuto:
		return "auto"
	case GapShift:
		return "shift"
	case GapAtTransition:
		return "at-transition"
	case GapSkip:
		return "skip"
	}
	return "GapPolicy(" + strconv.Itoa(int(p)) + ")"
}

// String returns "wall" or "date".
func (k PeriodKey) String() string {
	switch k {
	case ByWall:
		return "wall"
	case ByDate:
		return "date"
	}
	return "PeriodKey(" + strconv.Itoa(int(k)) + ")"
}
