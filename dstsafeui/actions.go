package dstsafeui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/dstsafe/dstsafe"
)

// ErrRefused: an action the period's state does not allow (retry of a
// succeeded period, skip of a running one). The error is an
// *ActionError.
var ErrRefused = errors.New("dstsafeui: action refused")

// ActionError is an action the ledger refused, with the record that made
// it refuse.
type ActionError struct {
	Action, Job, Period string
	Existing            dstsafe.Record
	Why                 string
}

func (e *ActionError) Error() string {
	return fmt.Sprintf("dstsafeui: %s %s %s refused: %s", e.Action, e.Job, e.Period, e.Why)
}

// Unwrap returns ErrRefused.
func (e *ActionError) Unwrap() error { return ErrRefused }

// action performs a POSTed action: pause or resume a job, retry (release)
// or skip a period. Refused (403) unless Options.AllowActions, and unless
// the request comes from this UI's origin with its session's CSRF token.
func (u *ui) action(w http.ResponseWriter, r *http.Request) {
	if !u.opts.AllowActions {
		http.Error(w, "403 forbidden: actions are off; start dstsafe ui with --allow-actions (Options.AllowActions) to pause, resume, retry or skip", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if !u.csrfOK(r) {
		http.Error(w, "403 forbidden: a cross-site request, or a form without this session's CSRF token: reload the page and try again", http.StatusForbidden)
		return
	}
	ctx := r.Context()
	act, job, key := r.PostFormValue("action"), r.PostFormValue("job"), r.PostFormValue("period")
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if !u.knownJob(w, r, job) {
		return
	}
	if reason == "" && act != "resume" {
		u.fail(w, r, http.StatusBadRequest, fmt.Errorf("%s needs a reason: say why, for the ledger's record", act))
		return
	}
	var (
		done string
		err  error
	)
	back := "job?" + url.Values{"name": {job}}.Encode()
	switch act {
	case "pause", "resume":
		p := dstsafe.Pause{Paused: act == "pause", By: u.opts.By, Reason: reason}
		if _, err = u.l.SetPause(ctx, job, p); err == nil {
			done = fmt.Sprintf("%s: %sd by %s", job, act, u.opts.By)
		}
	case "retry":
		err = retry(ctx, u.l, job, key, u.opts.By, reason)
		back = periodHref(job, key)
		done = fmt.Sprintf("%s %s: released by %s; the next claim (RunNow, Backfill or a catch-up) takes it over once", job, key, u.opts.By)
	case "skip":
		err = skip(ctx, u.l, job, key, u.opts.By, reason)
		back = periodHref(job, key)
		done = fmt.Sprintf("%s %s: skipped by %s; no scheduler runs it", job, key, u.opts.By)
	default:
		u.fail(w, r, http.StatusBadRequest, fmt.Errorf("unknown action %q: want pause, resume, retry or skip", act))
		return
	}
	switch {
	case errors.Is(err, ErrRefused):
		u.fail(w, r, http.StatusConflict, err)
		return
	case err != nil:
		u.fail(w, r, http.StatusBadGateway, err)
		return
	}
	u.opts.Logger.Info("dstsafe ui action", "action", act, "job", job, "period", key, "by", u.opts.By, "reason", reason)
	seeOther(w, back+"&"+url.Values{"done": {done}}.Encode())
}

// retry releases a failed or abandoned period (ControlLedger.Release): the
// next claim takes it over once.
func retry(ctx context.Context, l dstsafe.ControlLedger, job, key, by, reason string) error {
	_, err := l.Release(ctx, job, key, by, reason)
	var ce *dstsafe.ClaimedError
	switch {
	case errors.Is(err, dstsafe.ErrNotFound):
		return &ActionError{Action: "retry", Job: job, Period: key, Why: "no record (never claimed): nothing to retry; a scheduler runs it when it is due"}
	case errors.As(err, &ce):
		return &ActionError{Action: "retry", Job: job, Period: key, Existing: ce.Existing,
			Why: fmt.Sprintf("it is %s (owner %s, attempt %d): only a failed or abandoned period can be retried", ce.Existing.State, ce.Existing.Owner, ce.Existing.Attempt)}
	}
	return err
}

// skip records a period as skipped on purpose, as `dstsafe ledger skip`
// does: a period without a record is claimed by the operator and finished
// skipped; a failed or abandoned one is released, taken over and finished
// skipped. A running, succeeded or skipped period is refused.
func skip(ctx context.Context, l dstsafe.ControlLedger, job, key, by, reason string) error {
	refused := func(r dstsafe.Record, why string) error {
		return &ActionError{Action: "skip", Job: job, Period: key, Existing: r,
			Why: fmt.Sprintf("it is %s (owner %s, attempt %d)%s", r.State, r.Owner, r.Attempt, why)}
	}
	cur, err := l.Get(ctx, job, key)
	switch {
	case errors.Is(err, dstsafe.ErrNotFound):
	case err != nil:
		return err
	case cur.State == dstsafe.StateFailed || cur.State == dstsafe.StateAbandoned:
		if _, err := l.Release(ctx, job, key, by, "to skip it: "+reason); err != nil {
			var ce *dstsafe.ClaimedError
			if errors.As(err, &ce) {
				return refused(ce.Existing, " since the skip began: not skipped")
			}
			return err
		}
	default:
		return refused(cur, ": only a period without a record, or a failed or abandoned one, can be skipped")
	}
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: key, Owner: by})
	var ce *dstsafe.ClaimedError
	if errors.As(err, &ce) {
		return refused(ce.Existing, " since the skip began: not skipped")
	}
	if err != nil {
		return err
	}
	_, err = l.Finish(ctx, job, key, r.Token, dstsafe.StateSkipped, reason)
	return err
}
