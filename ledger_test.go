package dstsafe_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

func TestMemoryLedger(t *testing.T) {
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return dstsafe.NewMemoryLedger(clock)
	})
}

func TestValidateKey(t *testing.T) {
	tests := []struct {
		name, key string
		ok        bool
	}{
		{"date period", "2024-11-03", true},
		{"fold period keeps its offset", "2024-11-03T01:30-06:00", true},
		{"multibyte job", "facturación", true},
		{"exactly MaxKeyLen bytes", strings.Repeat("a", ledgerkit.MaxKeyLen), true},
		{"empty", "", false},
		{"one byte too long", strings.Repeat("a", ledgerkit.MaxKeyLen+1), false},
		{"Latin-1 byte from a legacy system", "factura\xe7ion", false},
		{"NUL from a C string", "billing\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ledgerkit.ValidateKey("period", tt.key)
			if tt.ok {
				if err != nil {
					t.Fatalf("ValidateKey(%q) = %v, want nil", tt.key, err)
				}
				return
			}
			if !errors.Is(err, dstsafe.ErrInvalidArgument) {
				t.Fatalf("ValidateKey(%q) = %v, want ErrInvalidArgument", tt.key, err)
			}
			var ke *dstsafe.KeyError
			if !errors.As(err, &ke) || ke.Field != "period" || ke.Value != tt.key || ke.Reason == "" {
				t.Fatalf("ValidateKey(%q) = %#v, want a *KeyError for period", tt.key, err)
			}
		})
	}
}

func TestEffectiveLease(t *testing.T) {
	tests := []struct {
		in, want time.Duration
		err      error
	}{
		{0, dstsafe.DefaultLease, nil},
		{30 * time.Second, 30 * time.Second, nil},
		{time.Nanosecond, time.Microsecond, nil},        // kept to microseconds, never zero
		{1500 * time.Nanosecond, time.Microsecond, nil}, // truncated like the instants
		{-time.Second, 0, dstsafe.ErrInvalidArgument},   // a lease in the past is a bug
	}
	for _, tt := range tests {
		got, err := ledgerkit.EffectiveLease(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("EffectiveLease(%v) = %v, %v; want %v", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("EffectiveLease(%v) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestNormalizeReason(t *testing.T) {
	long := strings.Repeat("€", ledgerkit.MaxReasonLen) // 3 bytes a rune: the cut falls mid-rune
	tests := []struct {
		in, want string
	}{
		{"ok", "ok"},
		{"a\x80b", "a\uFFFDb"},
		{"a\x00b", "ab"},
		{long, long[:ledgerkit.MaxReasonLen/3*3]},
	}
	for _, tt := range tests {
		if got := ledgerkit.NormalizeReason(tt.in); got != tt.want {
			t.Errorf("NormalizeReason(%.20q...) = %.20q... (%d bytes), want %d bytes", tt.in, got, len(got), len(tt.want))
		}
	}
}

func TestRecordStateAt(t *testing.T) {
	lease := time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC)
	running := dstsafe.Record{State: dstsafe.StateRunning, LeaseUntil: lease}
	done := dstsafe.Record{State: dstsafe.StateSucceeded, LeaseUntil: lease}
	tests := []struct {
		r    dstsafe.Record
		at   time.Time
		want dstsafe.State
	}{
		{running, lease.Add(-time.Second), dstsafe.StateRunning},
		{running, lease, dstsafe.StateRunning}, // at LeaseUntil the lease still holds
		{running, lease.Add(time.Microsecond), dstsafe.StateAbandoned},
		{done, lease.Add(time.Hour), dstsafe.StateSucceeded}, // finished records never expire
	}
	for _, tt := range tests {
		if got := tt.r.StateAt(tt.at); got != tt.want {
			t.Errorf("%s record, lease until %v: StateAt(%v) = %s, want %s", tt.r.State, lease, tt.at, got, tt.want)
		}
	}
}

func TestRetryPolicyAllows(t *testing.T) {
	tests := []struct {
		name  string
		p     dstsafe.RetryPolicy
		state dstsafe.State
		att   int
		want  bool
	}{
		{"zero policy never takes over (money-moving default)", dstsafe.RetryPolicy{}, dstsafe.StateFailed, 1, false},
		{"failed, second attempt", dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}, dstsafe.StateFailed, 1, true},
		{"failed, attempts used up", dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}, dstsafe.StateFailed, 2, false},
		{"abandoned needs Abandoned", dstsafe.RetryPolicy{MaxAttempts: 5, Failed: true}, dstsafe.StateAbandoned, 1, false},
		{"abandoned, allowed", dstsafe.RetryPolicy{MaxAttempts: 5, Abandoned: true}, dstsafe.StateAbandoned, 4, true},
		{"running never", dstsafe.RetryPolicy{MaxAttempts: 5, Failed: true, Abandoned: true}, dstsafe.StateRunning, 1, false},
		{"succeeded never", dstsafe.RetryPolicy{MaxAttempts: 5, Failed: true, Abandoned: true}, dstsafe.StateSucceeded, 1, false},
		{"skipped never", dstsafe.RetryPolicy{MaxAttempts: 5, Failed: true, Abandoned: true}, dstsafe.StateSkipped, 1, false},
		// An operator's release (ControlLedger.Release) overrides the policy
		// for failed and abandoned periods only.
		{"released failed, zero policy", dstsafe.RetryPolicy{}, dstsafe.StateFailed, 3, true},
		{"released abandoned, attempts used up", dstsafe.RetryPolicy{MaxAttempts: 1}, dstsafe.StateAbandoned, 1, true},
		{"released succeeded never", dstsafe.RetryPolicy{}, dstsafe.StateSucceeded, 1, false},
		{"released running never", dstsafe.RetryPolicy{}, dstsafe.StateRunning, 1, false},
		{"released skipped never", dstsafe.RetryPolicy{}, dstsafe.StateSkipped, 1, false},
	}
	for _, tt := range tests {
		released := strings.HasPrefix(tt.name, "released")
		if got := tt.p.Allows(dstsafe.Record{State: tt.state, Attempt: tt.att, Released: released}); got != tt.want {
			t.Errorf("%s: Allows = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestClaimedError(t *testing.T) {
	started := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)
	var err error = &dstsafe.ClaimedError{Existing: dstsafe.Record{Job: "billing", Period: "2024-11-03", State: dstsafe.StateSucceeded, Owner: "w1", StartedAt: started}}
	if !errors.Is(err, dstsafe.ErrAlreadyClaimed) || errors.Is(err, dstsafe.ErrLeaseLost) {
		t.Errorf("errors.Is(%v): want ErrAlreadyClaimed only", err)
	}
	if !strings.HasPrefix(err.Error(), "dstsafe: ") {
		t.Errorf("Error() = %q, want the dstsafe: prefix", err)
	}
}

func TestNewMemoryLedgerNilClock(t *testing.T) {
	l := dstsafe.NewMemoryLedger(nil)
	r, err := l.Claim(t.Context(), dstsafe.ClaimRequest{Job: "j", Period: "p", Owner: "o"})
	if err != nil || r.StartedAt.IsZero() {
		t.Fatalf("Claim with the real clock = %+v, %v", r, err)
	}
}

// Any string is either refused with ErrInvalidArgument or claimable exactly
// once under exactly that key.
func FuzzMemoryLedgerKeys(f *testing.F) {
	for _, s := range []string{"2024-11-03", "2024-11-03T01:30-06:00", "", "factura\xe7ion", "billing\x00", "é", strings.Repeat("a", 256)} {
		f.Add(s, "2024-11-03")
	}
	f.Fuzz(func(t *testing.T, job, period string) {
		l := dstsafe.NewMemoryLedger(clockwork.NewFakeClock())
		valid := func(s string) bool {
			return s != "" && len(s) <= ledgerkit.MaxKeyLen && utf8.ValidString(s) && !strings.ContainsRune(s, 0)
		}
		req := dstsafe.ClaimRequest{Job: job, Period: period, Owner: "w"}
		r, err := l.Claim(t.Context(), req)
		if !valid(job) || !valid(period) {
			if !errors.Is(err, dstsafe.ErrInvalidArgument) {
				t.Fatalf("Claim(%q, %q) = %v, want ErrInvalidArgument", job, period, err)
			}
			return
		}
		if err != nil || r.Job != job || r.Period != period {
			t.Fatalf("Claim(%q, %q) = %+v, %v", job, period, r, err)
		}
		if _, err := l.Claim(t.Context(), req); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
			t.Fatalf("second Claim(%q, %q) = %v", job, period, err)
		}
		if g, err := l.Get(t.Context(), job, period); err != nil || g.Token != r.Token {
			t.Fatalf("Get(%q, %q) = %+v, %v", job, period, g, err)
		}
	})
}

// A stored reason is valid UTF-8 without NUL, within MaxReasonLen, and
// normalising it again changes nothing.
func FuzzNormalizeReason(f *testing.F) {
	for _, s := range []string{"ok", "a\x80b", "nul\x00", strings.Repeat("€", ledgerkit.MaxReasonLen)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ledgerkit.NormalizeReason(s)
		if !utf8.ValidString(got) || strings.ContainsRune(got, 0) || len(got) > ledgerkit.MaxReasonLen {
			t.Fatalf("NormalizeReason(%q) = %q", s, got)
		}
		if again := ledgerkit.NormalizeReason(got); again != got {
			t.Fatalf("NormalizeReason not idempotent: %q -> %q", got, again)
		}
	})
}
