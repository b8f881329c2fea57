package dstsafe_test

import (
	"errors"
	"testing"

	"github.com/dstsafe/dstsafe"
)

// The errors a newcomer meets first point at the fix: a misspelt or
// miscased zone names the closest tz names, a US abbreviation names the
// place to use, a Quartz-style 6-field spec names WithSeconds. The message
// is the feature here, so the rows compare it whole.
func TestParseCronErrorsPointAtTheFix(t *testing.T) {
	tests := []struct {
		spec   string
		opts   []dstsafe.CronOption
		field  string
		reason string
	}{
		// A typo in the README's own zone.
		{"CRON_TZ=America/Chicgo 30 1 * * *", nil, "zone",
			`unknown zone "America/Chicgo"; did you mean America/Chicago?`},
		// Zone names are case-sensitive on Linux (and load on macOS): the
		// right case, everywhere.
		{"CRON_TZ=europe/london 0 9 * * *", nil, "zone",
			`unknown zone "europe/london"; did you mean Europe/London? (zone names are case-sensitive)`},
		{"CRON_TZ=AMERICA/NEW_YORK 0 9 * * *", nil, "zone",
			`unknown zone "AMERICA/NEW_YORK"; did you mean America/New_York? (zone names are case-sensitive)`},
		// A city without its region.
		{"CRON_TZ=Chicago 30 1 * * *", nil, "zone",
			`unknown zone "Chicago"; did you mean America/Chicago?`},
		// São Paulo's common misspelling.
		{"CRON_TZ=America/Sao_Paolo 0 0 * * *", nil, "zone",
			`unknown zone "America/Sao_Paolo"; did you mean America/Sao_Paulo?`},
		// Nothing close: no guess.
		{"CRON_TZ=Mars/Olympus_Mons 0 0 * * *", nil, "zone",
			`unknown zone "Mars/Olympus_Mons": not in the tz database; name an IANA zone such as America/Chicago`},
		// EST loads (tzdata has it) but never observes DST: a New York
		// job written with it runs an hour late all summer.
		{"CRON_TZ=EST 30 1 * * *", nil, "zone",
			`"EST" is not a place: EST is a fixed offset of -05:00 with no DST; for US Eastern time use America/New_York (Etc/GMT+5 if you mean a fixed -05:00)`},
		{"CRON_TZ=MST 0 6 * * *", nil, "zone",
			`"MST" is not a place: MST is a fixed offset of -07:00 with no DST; for US Mountain time use America/Denver, for Arizona America/Phoenix (Etc/GMT+7 if you mean a fixed -07:00)`},
		{"TZ=HST 0 6 * * *", nil, "zone",
			`"HST" is not a place: HST is a fixed offset of -10:00 with no DST; for Hawaii use Pacific/Honolulu (Etc/GMT+10 if you mean a fixed -10:00)`},
		// Legacy rule zone: US rules only, no history before 1967.
		{"CRON_TZ=PST8PDT 0 6 * * *", nil, "zone",
			`"PST8PDT" is not a place: PST8PDT is a legacy rule zone, not a place; for US Pacific time use America/Los_Angeles`},
		// Not a tz name at all, in any case.
		{"CRON_TZ=pst 0 6 * * *", nil, "zone",
			`"pst" is not a place: PST is an abbreviation, not a zone; for US Pacific time use America/Los_Angeles`},
		// A fixed offset: refused as before.
		{"CRON_TZ=UTC+5 0 0 * * *", nil, "zone",
			`"UTC+5" is a fixed offset, not a zone; name an IANA zone such as America/Chicago (or Etc/GMT-5 for a fixed UTC+5)`},
		// A Quartz / robfig WithSeconds spec pasted without WithSeconds.
		{"0 30 1 * * *", nil, "spec",
			"6 fields: use WithSeconds() or drop the seconds field"},
		{"CRON_TZ=America/Chicago 0 30 1 * * *", nil, "spec",
			"6 fields: use WithSeconds() or drop the seconds field"},
		{"30 1 * * *", []dstsafe.CronOption{dstsafe.WithSeconds()}, "spec",
			`5 fields with WithSeconds(): add a seconds field first ("0 30 1 * * *") or drop WithSeconds()`},
		{"1 2 3 4 5 6 7", nil, "spec", "want 5 fields, got 7"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := dstsafe.ParseCron(tt.spec, tt.opts...)
			var pe *dstsafe.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseCron(%q) = %v, %v; want a *ParseError", tt.spec, c, err)
			}
			if pe.Field != tt.field || pe.Reason != tt.reason {
				t.Errorf("ParseCron(%q):\n got %s: %s\nwant %s: %s", tt.spec, pe.Field, pe.Reason, tt.field, tt.reason)
			}
			if want := `dstsafe: parse cron spec "` + tt.spec + `": ` + tt.field + ": " + tt.reason; err.Error() != want {
				t.Errorf("message:\n got %s\nwant %s", err, want)
			}
		})
	}
}

// RRULE's TZID reads zones the same way.
func TestParseRRuleZoneSuggestion(t *testing.T) {
	_, err := dstsafe.ParseRRule("DTSTART;TZID=America/Chicgo:20240101T013000\nRRULE:FREQ=DAILY")
	var pe *dstsafe.ParseError
	if !errors.As(err, &pe) || pe.Field != "DTSTART" {
		t.Fatalf("ParseRRule with TZID=America/Chicgo = %v; want a *ParseError on DTSTART", err)
	}
	if want := `unknown zone "America/Chicgo"; did you mean America/Chicago?`; pe.Reason != want {
		t.Errorf("reason %q, want %q", pe.Reason, want)
	}
}
