package dstsafevet

import (
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// SplitZone splits a CRON_TZ= or TZ= prefix off a cron spec. It returns the
// zone name ("" when there is no prefix) and the rest of the spec.
func SplitZone(spec string) (zone, rest string) {
	s := strings.TrimSpace(spec)
	for _, p := range []string{"CRON_TZ=", "TZ="} {
		if strings.HasPrefix(s, p) {
			z, r, _ := strings.Cut(s[len(p):], " ")
			return z, strings.TrimSpace(r)
		}
	}
	return "", s
}

// FixedTime reports whether a spec (without its zone prefix) fires at fixed
// wall times: no field among seconds, minute and hour starts with "*", and
// descriptors that name a time of day (@daily, @weekly, ...). This is the
// design's definition, which decides between the fixed-time and periodic
// fold/gap policies.
func FixedTime(rest string) bool {
	f := strings.Fields(rest)
	if len(f) == 0 {
		return false
	}
	if strings.HasPrefix(f[0], "@") {
		switch f[0] {
		case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight":
			return true
		}
		return false
	}
	n := 2 // minute, hour
	if len(f) >= 6 {
		n = 3 // seconds, minute, hour
	}
	if len(f) < n {
		return false
	}
	for _, x := range f[:n] {
		if strings.HasPrefix(x, "*") {
			return false
		}
	}
	return true
}

// Risk is one firing of a fixed-time spec whose wall reading falls in a
// transition's skipped or repeated range.
type Risk struct {
	Transition dstsafe.Transition
	Occurrence dstsafe.Occurrence
}

// String describes the risk in a few words: "01:30 occurs twice on
// 2024-11-03" or "02:30 does not exist on 2024-03-10".
func (r Risk) String() string {
	w := r.Occurrence.Wall
	hm := fmt.Sprintf("%02d:%02d", w.Hour, w.Minute)
	if w.Second != 0 {
		hm += fmt.Sprintf(":%02d", w.Second)
	}
	date := fmt.Sprintf("%04d-%02d-%02d", w.Year, int(w.Month), w.Day)
	if r.Occurrence.Kind == dstsafe.Gap {
		return hm + " does not exist on " + date
	}
	return hm + " occurs twice on " + date
}

// WindowRisks returns the firings of spec, a spec with a zone prefix and
// a fixed time, whose wall reading is skipped or repeated by a transition of
// the zone in [from, to). A spec without a zone, a periodic spec, or one
// ParseCron rejects has no risks; an unknown zone is an error.
func WindowRisks(spec string, from, to time.Time) ([]Risk, error) {
	zone, rest := SplitZone(spec)
	if zone == "" || !FixedTime(rest) {
		return nil, nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("unknown zone %q: %w", zone, err)
	}
	c, err := dstsafe.ParseCron(spec, cronOptions(rest)...)
	if err != nil {
		return nil, nil
	}
	var risks []Risk
	for _, tr := range dstsafe.Transitions(loc, from, to) {
		// A transition's window is at most a day long (Apia 2011 skipped
		// one), so firings two days either side cover it.
		end := tr.At.Add(48 * time.Hour)
		after := tr.At.Add(-48 * time.Hour)
		for i := 0; i < 10000; i++ {
			o, ok := c.NextOccurrence(after)
			if !ok || o.At.After(end) {
				break
			}
			if o.Kind == dstsafe.Fold || o.Kind == dstsafe.Gap {
				risks = append(risks, Risk{Transition: tr, Occurrence: o})
				break
			}
			after = o.At
		}
	}
	return risks, nil
}

// cronOptions returns the options a spec needs to parse as written.
func cronOptions(rest string) []dstsafe.CronOption {
	return nil
}
