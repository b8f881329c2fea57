package dstsafe

import (
	"fmt"
	"reflect"
	"time"
)

// The kinds of refused option, each wrapping ErrInvalidArgument (the
// *ArgError around them names the option).
var (
	errNilLedger   error = invalid("nil ledger")
	errNilClock    error = invalid("nil clock")
	errNilObserver error = invalid("nil observer")
	errNilPolicy   error = invalid("nil policy")
	// errIgnoredOption: an option that cannot apply to the job it is
	// given with, which would otherwise be ignored.
	errIgnoredOption error = invalid("option would be ignored")
)

// isNilValue reports whether v, a non-nil interface value, holds a nil
// pointer, map, func, channel, slice or interface: a typed nil, which
// passes a v != nil check and panics when a method dereferences it.
func isNilValue(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// checkApplies refuses job options that the schedule or the other
// options would make ignored: a silent no-op would run the job otherwise
// than its author wrote.
func (c *jobConfig) checkApplies(sched Schedule, occ OccurrenceSchedule) error {
	if c.scheduleLoc != nil && occ != nil {
		return &ArgError{Func: "WithScheduleLocation", Arg: "loc", Err: fmt.Errorf(
			"%w: a %T keys its own periods in its own zone and would run in it, not in %s: "+
				"put CRON_TZ=%s in the spec, or use ParseCron(spec, WithLocation(loc))",
			errIgnoredOption, sched, c.scheduleLoc, c.scheduleLoc)}
	}
	r := c.retry
	switch {
	case r.MaxAttempts < 0:
		return &ArgError{Func: "WithRetry", Arg: "p", Err: fmt.Errorf("%w: negative MaxAttempts %d", errInvalidRange, r.MaxAttempts)}
	case (r.Failed || r.Abandoned) && r.MaxAttempts <= 1:
		return &ArgError{Func: "WithRetry", Arg: "p", Err: fmt.Errorf(
			"%w: MaxAttempts %d allows no second attempt (it counts the first one)", errIgnoredOption, r.MaxAttempts)}
	case r.MaxAttempts > 1 && !r.Failed && !r.Abandoned:
		return &ArgError{Func: "WithRetry", Arg: "p", Err: fmt.Errorf(
			"%w: MaxAttempts %d with neither Failed nor Abandoned retries nothing", errIgnoredOption, r.MaxAttempts)}
	case c.retryBackoff > 0 && !r.Failed:
		return &ArgError{Func: "WithRetry", Arg: "backoff", Err: fmt.Errorf(
			"%w: a backoff of %v applies to retries of failed runs, and Failed is false", errIgnoredOption, c.retryBackoff)}
	}
	if c.heartbeat > 0 && c.lease > 0 && c.heartbeat >= c.lease {
		return &ArgError{Func: "WithLease", Arg: "heartbeat", Err: fmt.Errorf(
			"%w: heartbeat %v not shorter than the lease %v: the claim would lapse between heartbeats",
			errInvalidRange, c.heartbeat, c.lease)}
	}
	if c.heartbeat > 0 && c.lease <= 0 && c.heartbeat >= DefaultLease {
		return &ArgError{Func: "WithLease", Arg: "heartbeat", Err: fmt.Errorf(
			"%w: heartbeat %v not shorter than DefaultLease %v", errInvalidRange, c.heartbeat, time.Duration(DefaultLease))}
	}
	return nil
}
