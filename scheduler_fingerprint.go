package dstsafe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A schedule fingerprint identifies the schedule that computed a job's
// periods; the Scheduler gives it with every claim (ClaimRequest.Schedule)
// so that a restarted process can tell whether its schedule changed since
// the latest record. For a *Cron it is
//
//	cron1;<zone>;<zone data id>;<fold>;<gap>;<period key>;<seconds>;<origin>;<spec>
//
// ("cron1;America/Chicago;3f2a...;first;shift;wall;0;0;30 1 * * *"): text
// that parses back into the schedule, so the periods the old schedule
// missed can be computed under it. One too long for ledgerkit.MaxKeyLen is hashed
// ("cron1#<sha256 prefix>;<zone data id>"), which still detects a change. The zone data id
// (zoneTable.id) changes with the tz database; a change of it alone is not
// an edit. Plain Schedules have none: edits of them are not detected.
const fingerprintVersion = "cron1"

func fingerprint(c *Cron) string {
	sec := "0"
	if body := cronBody(c.spec); !strings.HasPrefix(body, "@") && len(strings.Fields(body)) == 6 {
		sec = "1"
	}
	f := []string{fingerprintVersion, c.loc.String(), zoneDataID(c.loc),
		c.fold.String(), c.gap.String(), c.key.String(), sec, strconv.FormatInt(c.origin, 10),
		strings.Join(strings.Fields(c.spec), " ")}
	if fp := strings.Join(f, ";"); len(fp) <= maxKeyLen {
		return fp
	}
	id := f[2]
	f[2] = ""
	sum := sha256.Sum256([]byte(strings.Join(f, ";")))
	return fingerprintVersion + "#" + hex.EncodeToString(sum[:16]) + ";" + id
}

// cronBody is the spec without its CRON_TZ= or TZ= prefix.
func cronBody(spec string) string {
	rest := strings.TrimSpace(spec)
	if strings.HasPrefix(rest, "CRON_TZ=") || strings.HasPrefix(rest, "TZ=") {
		if end := strings.IndexAny(rest, " \t\n\r"); end > 0 {
			return strings.TrimSpace(rest[end:])
		}
	}
	return rest
}

// fingerprintFields splits a cron1 fingerprint; ok is false for anything
// else (a hashed one, another version, a plain schedule's).
func fingerprintFields(fp string) (f []string, ok bool) {
	f = strings.SplitN(fp, ";", 9)
	return f, len(f) == 9 && f[0] == fingerprintVersion
}

// sameSchedule reports whether two fingerprints name the same schedule,
// whatever zone data each was computed with.
func sameSchedule(a, b string) bool {
	if a == b {
		return true
	}
	if h := fingerprintVersion + "#"; strings.HasPrefix(a, h) && strings.HasPrefix(b, h) {
		ha, _, _ := strings.Cut(a, ";")
		hb, _, _ := strings.Cut(b, ";")
		return ha == hb
	}
	fa, oka := fingerprintFields(a)
	fb, okb := fingerprintFields(b)
	if !oka || !okb {
		return false
	}
	// Zone data aside, and the spec compared without its CRON_TZ= prefix:
	// the zone is its own field ("CRON_TZ=America/Chicago 30 1 * * *" and
	// "30 1 * * *" in WithLocation(Chicago) are one schedule).
	fa[2], fb[2] = "", ""
	fa[8], fb[8] = cronBody(fa[8]), cronBody(fb[8])
	return strings.Join(fa, ";") == strings.Join(fb, ";")
}

// ParseFingerprint parses a schedule fingerprint (Record.Schedule,
// JobInfo.Schedule) back into the *Cron it names, in the zone it names
// (loaded by name from the host's tz database, which may be newer than the
// zone data the fingerprint records), with its fold and gap policies, period
// key and seconds field: the schedule whose expected periods a reader of
// the ledger (`dstsafe ui`, an audit) can compute without the spec being
// retyped. It returns an error wrapping ErrInvalidArgument for a hashed
// fingerprint (one too long to keep as text), another version, or text that
// does not parse; a plain Schedule's claims carry none.
func ParseFingerprint(fp string) (*Cron, error) {
	c := cronOfFingerprint(fp, nil)
	if c == nil {
		return nil, fmt.Errorf("%w: schedule fingerprint %q does not parse back into a cron schedule", ErrInvalidArgument, fp)
	}
	return c, nil
}

// specOfFingerprint parses fp back into the schedule it names, with cur's
// function and options (the job as it is now runs the old schedule's
// missed periods). It returns nil when fp cannot be parsed back. The zone
// is cur's own location when the names agree, else loaded by name.
func specOfFingerprint(fp string, cur *jobSpec) *jobSpec {
	var loc *time.Location
	if c, ok := cur.sched.(*Cron); ok {
		loc = c.loc
	}
	c := cronOfFingerprint(fp, loc)
	if c == nil {
		return nil
	}
	return &jobSpec{sched: c, occ: c, cron: c, fn: cur.fn, cfg: cur.cfg}
}

// cronOfFingerprint parses fp back into its *Cron, nil when it cannot. The
// zone is have when its name is the fingerprint's, else loaded by name.
func cronOfFingerprint(fp string, have *time.Location) *Cron {
	f, ok := fingerprintFields(fp)
	if !ok {
		return nil
	}
	var loc *time.Location
	if have != nil && have.String() == f[1] {
		loc = have
	} else if f[1] == "UTC" {
		loc = time.UTC
	} else {
		var err error
		if loc, err = loadZoneOnce(f[1]); err != nil {
			return nil
		}
	}
	opts := []CronOption{WithLocation(loc)}
	body := cronBody(f[8])
	if !strings.HasPrefix(body, "@every") {
		var fold FoldPolicy
		var gap GapPolicy
		if fold.UnmarshalText([]byte(f[3])) != nil || gap.UnmarshalText([]byte(f[4])) != nil {
			return nil
		}
		opts = append(opts, WithFold(fold), WithGap(gap))
	}
	var key PeriodKey
	if key.UnmarshalText([]byte(f[5])) != nil {
		return nil
	}
	opts = append(opts, WithPeriodKey(key))
	if f[6] == "1" {
		opts = append(opts, WithSeconds())
	}
	if origin, err := strconv.ParseInt(f[7], 10, 64); err != nil {
		return nil
	} else if origin != 0 {
		opts = append(opts, WithEveryOrigin(time.Unix(origin, 0)))
	}
	c, err := ParseCron(f[8], opts...)
	if err != nil {
		return nil
	}
	return c
}
