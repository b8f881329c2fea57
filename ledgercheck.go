package dstsafe

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dstsafe/dstsafe/internal/ledgerlink"
)

// The checks every Ledger makes before touching storage. MemoryLedger
// calls them here; every other backend through package ledgerkit, which
// exports them (see the ledgerlink package for why they live here).
func init() {
	ledgerlink.Set(ledgerlink.Checks[ClaimRequest, Record, State]{
		Claim:     checkClaim,
		ClockSkew: checkClockSkew,
		Heartbeat: checkHeartbeat,
		Finish:    checkFinish,
		Get:       checkKeys,
		List:      checkList,
		Key:       validateKey,
		Bound:     validateBound,
		Lease:     effectiveLease,
		Reason:    normalizeReason,
		Time:      ledgerTime,
		LeaseLost: leaseLost,
		NotFound:  notFound,
		SetPause:  checkSetPause,
		Job:       checkJob,
		Release:   checkRelease,

		JobNotFound: jobNotFound,
	})
}

// checkClaim is Claim's preamble: ctx not done, keys valid, lease and
// MaxAttempts not negative. It returns the lease the claim gets.
func checkClaim(ctx context.Context, r ClaimRequest) (time.Duration, error) {
	if err := checkKeys(ctx, r.Job, r.Period); err != nil {
		return 0, err
	}
	if err := validateKey("owner", r.Owner); err != nil {
		return 0, err
	}
	if r.Schedule != "" {
		if err := validateKey("schedule", r.Schedule); err != nil {
			return 0, err
		}
	}
	if r.ID != "" {
		if err := validateKey("id", r.ID); err != nil {
			return 0, err
		}
	}
	lease, err := effectiveLease(r.Lease)
	if err != nil {
		return 0, err
	}
	if r.Retry.MaxAttempts < 0 {
		return 0, fmt.Errorf("%w: negative Retry.MaxAttempts %d", errInvalidRequest, r.Retry.MaxAttempts)
	}
	if r.MaxClockOffset < 0 {
		return 0, fmt.Errorf("%w: negative MaxClockOffset %v", errInvalidRequest, r.MaxClockOffset)
	}
	return lease, nil
}

// checkClockSkew refuses a claim whose claimer's clock (r.Now) is further
// from storeNow, the store's clock, than r.MaxClockOffset (or
// defaultMaxClockOffset), with a *clockSkewError. A zero r.Now passes.
// r.Now is compared as given, to the nanosecond: a reading one nanosecond
// past the bound is refused.
func checkClockSkew(r ClaimRequest, storeNow time.Time) error {
	if r.Now.IsZero() {
		return nil
	}
	limit := r.MaxClockOffset
	if limit <= 0 {
		limit = defaultMaxClockOffset
	}
	off := r.Now.Sub(storeNow)
	if off > limit || off < -limit {
		return &clockSkewError{Job: r.Job, Period: r.Period, Offset: off, Max: limit,
			StoreNow: storeNow, ClaimerNow: r.Now}
	}
	return nil
}

// checkHeartbeat is Heartbeat's preamble; it returns the lease to extend by.
func checkHeartbeat(ctx context.Context, job, period string, lease time.Duration) (time.Duration, error) {
	if err := checkKeys(ctx, job, period); err != nil {
		return 0, err
	}
	return effectiveLease(lease)
}

// checkFinish is Finish's preamble; it returns the reason to store.
func checkFinish(ctx context.Context, job, period string, state State, reason string) (string, error) {
	if err := checkKeys(ctx, job, period); err != nil {
		return "", err
	}
	switch state {
	case StateSucceeded, StateFailed, StateSkipped:
		return normalizeReason(reason), nil
	}
	return "", fmt.Errorf("%w: cannot finish in state %s (%d)", errInvalidRequest, state, uint8(state))
}

// checkKeys is Get's preamble, and the start of the others.
func checkKeys(ctx context.Context, job, period string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateKey("job", job); err != nil {
		return err
	}
	return validateKey("period", period)
}

// checkList is List's preamble.
func checkList(ctx context.Context, job, from, to string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateKey("job", job); err != nil {
		return err
	}
	if err := validateBound("from", from); err != nil {
		return err
	}
	return validateBound("to", to)
}

// validateKey checks a job name, period, owner or schedule: non-empty, at
// most ledgerkit.MaxKeyLen bytes, valid UTF-8 and free of NUL bytes (PostgreSQL's
// text type cannot hold NUL).
func validateKey(field, s string) error {
	switch {
	case s == "":
		return &KeyError{Field: field, Value: s, Reason: "empty"}
	case len(s) > maxKeyLen:
		return &KeyError{Field: field, Value: s, Reason: fmt.Sprintf("longer than %d bytes", maxKeyLen)}
	}
	return validateBound(field, s)
}

// validateBound checks a List bound: like validateKey, except that empty
// means open and the length is not limited.
func validateBound(field, s string) error {
	if !utf8.ValidString(s) {
		return &KeyError{Field: field, Value: s, Reason: "not valid UTF-8"}
	}
	if strings.IndexByte(s, 0) >= 0 {
		return &KeyError{Field: field, Value: s, Reason: "contains a NUL byte"}
	}
	return nil
}

// effectiveLease returns DefaultLease for zero, d to the microsecond (at
// least one) when positive, an error wrapping ErrInvalidArgument when
// negative.
func effectiveLease(d time.Duration) (time.Duration, error) {
	switch {
	case d < 0:
		return 0, fmt.Errorf("%w: negative lease %v", errInvalidRequest, d)
	case d == 0:
		return DefaultLease, nil
	case d < time.Microsecond:
		return time.Microsecond, nil
	}
	return d.Truncate(time.Microsecond), nil
}

// normalizeReason returns s as valid UTF-8 without NUL, cut to
// ledgerkit.MaxReasonLen bytes at a rune boundary.
func normalizeReason(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	if len(s) <= maxReasonLen {
		return s
	}
	cut := maxReasonLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// ledgerTime returns t in UTC, truncated to microseconds, without a
// monotonic clock reading.
func ledgerTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

// leaseLost is the error of Heartbeat and Finish when token no longer
// holds the period whose record is cur.
func leaseLost(cur Record, token int64) error {
	return fmt.Errorf("%w: job %q period %q: token %d does not hold it (token %d, %s, owner %q)",
		ErrLeaseLost, cur.Job, cur.Period, token, cur.Token, cur.State, cur.Owner)
}

// notFound is the error for a period without a record.
func notFound(job, period string) error {
	return fmt.Errorf("%w: job %q period %q", ErrNotFound, job, period)
}

// checkJob is GetPause's preamble.
func checkJob(ctx context.Context, job string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return validateKey("job", job)
}

// checkSetPause is SetPause's preamble: the job, a non-empty By. It
// returns the reason to store.
func checkSetPause(ctx context.Context, job, by, reason string) (string, error) {
	if err := checkJob(ctx, job); err != nil {
		return "", err
	}
	if err := validateKey("by", by); err != nil {
		return "", err
	}
	return normalizeReason(reason), nil
}

// checkRelease is Release's preamble: the keys, a non-empty by. It returns
// the reason to store.
func checkRelease(ctx context.Context, job, period, by, reason string) (string, error) {
	if err := checkKeys(ctx, job, period); err != nil {
		return "", err
	}
	if err := validateKey("by", by); err != nil {
		return "", err
	}
	return normalizeReason(reason), nil
}
