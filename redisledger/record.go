package redisledger

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/dstsafe/dstsafe"
)

// stored is a record as it is kept in Redis: a JSON string value, so that
// `redis-cli GET` shows it whole. Instants are RFC 3339 with nanoseconds in
// UTC. Claim is a random id of the claim (attempt) that wrote the record; it
// lets a claim retried by the client after a lost reply recognise its own
// write instead of reporting the period as claimed by someone else.
// ClaimID is the caller's dstsafe.ClaimRequest.ID, which a retried claim
// gives again (absent when it gave none, and in records written before it
// was kept).
// Schedule is absent from records written before it was kept, and from
// claims that give none: both read as "". The release fields are absent
// until an operator releases the period (dstsafe.ControlLedger.Release).
type stored struct {
	Job           string    `json:"job"`
	Period        string    `json:"period"`
	State         string    `json:"state"`
	Owner         string    `json:"owner"`
	Token         int64     `json:"token"`
	Attempt       int       `json:"attempt"`
	StartedAt     time.Time `json:"started_at"`
	LeaseUntil    time.Time `json:"lease_until,omitzero"`
	FinishedAt    time.Time `json:"finished_at,omitzero"`
	Reason        string    `json:"reason,omitempty"`
	Schedule      string    `json:"schedule,omitempty"`
	Released      bool      `json:"released,omitempty"`
	ReleasedBy    string    `json:"released_by,omitempty"`
	ReleaseReason string    `json:"release_reason,omitempty"`
	Claim         string    `json:"claim"`
	ClaimID       string    `json:"claim_id,omitempty"`
}

// A CorruptRecordError reports a value under a ledger key that is not a
// record this package wrote. The ledger refuses to overwrite it.
type CorruptRecordError struct {
	Key string
	Err error
}

// Error names the key and what is wrong with its value.
func (e *CorruptRecordError) Error() string {
	return "redisledger: corrupt record at key " + strconv.Quote(e.Key) + ": " + e.Err.Error()
}

// Unwrap returns the decoding error.
func (e *CorruptRecordError) Unwrap() error { return e.Err }

// Is reports true for dstsafe.ErrPermanent: retrying cannot repair the
// value; someone must look at it (redis-cli GET) and delete or restore it.
func (e *CorruptRecordError) Is(target error) bool { return target == dstsafe.ErrPermanent }

var stateNames = map[string]dstsafe.State{
	dstsafe.StateRunning.String():   dstsafe.StateRunning,
	dstsafe.StateSucceeded.String(): dstsafe.StateSucceeded,
	dstsafe.StateFailed.String():    dstsafe.StateFailed,
	dstsafe.StateSkipped.String():   dstsafe.StateSkipped,
}

// entry is a decoded record together with the exact bytes it was read as:
// every transition is a compare-and-set against those bytes.
type entry struct {
	raw   string
	rec   dstsafe.Record
	claim string
}

// encode returns the stored form of r. It fails only for instants that
// JSON cannot hold (years outside 0-9999, from a broken Clock).
func encode(r dstsafe.Record, claim string) (string, error) {
	s := stored{
		Job:           r.Job,
		Period:        r.Period,
		State:         r.State.String(),
		Owner:         r.Owner,
		Token:         r.Token,
		Attempt:       r.Attempt,
		StartedAt:     r.StartedAt.UTC(),
		LeaseUntil:    r.LeaseUntil.UTC(),
		FinishedAt:    r.FinishedAt.UTC(),
		Reason:        r.Reason,
		Schedule:      r.Schedule,
		Released:      r.Released,
		ReleasedBy:    r.ReleasedBy,
		ReleaseReason: r.ReleaseReason,
		Claim:         claim,
		ClaimID:       r.ClaimID,
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("redisledger: encoding record of %q %q: %w", r.Job, r.Period, err)
	}
	return string(b), nil
}

func decode(key, raw string) (entry, error) {
	var s stored
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return entry{}, &CorruptRecordError{Key: key, Err: err}
	}
	st, ok := stateNames[s.State]
	if !ok {
		return entry{}, &CorruptRecordError{Key: key, Err: fmt.Errorf("unknown state %q", s.State)}
	}
	if s.Token < 1 || s.Attempt < 1 {
		return entry{}, &CorruptRecordError{Key: key, Err: fmt.Errorf("token %d, attempt %d", s.Token, s.Attempt)}
	}
	return entry{
		raw:   raw,
		claim: s.Claim,
		rec: dstsafe.Record{
			Job:           s.Job,
			Period:        s.Period,
			State:         st,
			Owner:         s.Owner,
			Token:         s.Token,
			Attempt:       s.Attempt,
			StartedAt:     s.StartedAt.UTC(),
			FinishedAt:    s.FinishedAt.UTC(),
			LeaseUntil:    s.LeaseUntil.UTC(),
			Reason:        s.Reason,
			Schedule:      s.Schedule,
			Released:      s.Released,
			ReleasedBy:    s.ReleasedBy,
			ReleaseReason: s.ReleaseReason,
			ClaimID:       s.ClaimID,
		},
	}, nil
}
