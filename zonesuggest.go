package dstsafe

//go:generate go run ./internal/genzonenames

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dstsafe/dstsafe/internal/editdist"
)

// zoneAbbrevs holds the names people write for a US zone that are not a
// place: tzdata's fixed-offset zones EST, MST and HST (no DST ever: EST in
// January and July is -05:00, while New York is -04:00 in July), the
// legacy POSIX-style rule zones EST5EDT... (US rules only; since tzdata
// 2024b mere links), and abbreviations that are no tz name at all. Each
// maps to the advice ParseCron gives instead of loading it.
var zoneAbbrevs = map[string]string{
	"EST":     "EST is a fixed offset of -05:00 with no DST; for US Eastern time use America/New_York (Etc/GMT+5 if you mean a fixed -05:00)",
	"MST":     "MST is a fixed offset of -07:00 with no DST; for US Mountain time use America/Denver, for Arizona America/Phoenix (Etc/GMT+7 if you mean a fixed -07:00)",
	"HST":     "HST is a fixed offset of -10:00 with no DST; for Hawaii use Pacific/Honolulu (Etc/GMT+10 if you mean a fixed -10:00)",
	"EST5EDT": "EST5EDT is a legacy rule zone, not a place; for US Eastern time use America/New_York",
	"CST6CDT": "CST6CDT is a legacy rule zone, not a place; for US Central time use America/Chicago",
	"MST7MDT": "MST7MDT is a legacy rule zone, not a place; for US Mountain time use America/Denver",
	"PST8PDT": "PST8PDT is a legacy rule zone, not a place; for US Pacific time use America/Los_Angeles",
	"EDT":     "EDT is an abbreviation, not a zone; for US Eastern time use America/New_York",
	"CST":     "CST is an abbreviation, not a zone; for US Central time use America/Chicago",
	"CDT":     "CDT is an abbreviation, not a zone; for US Central time use America/Chicago",
	"MDT":     "MDT is an abbreviation, not a zone; for US Mountain time use America/Denver",
	"PST":     "PST is an abbreviation, not a zone; for US Pacific time use America/Los_Angeles",
	"PDT":     "PDT is an abbreviation, not a zone; for US Pacific time use America/Los_Angeles",
	"AKST":    "AKST is an abbreviation, not a zone; for Alaska use America/Anchorage",
	"AKDT":    "AKDT is an abbreviation, not a zone; for Alaska use America/Anchorage",
}

// abbrevAdvice returns the advice for a zone name that is a US abbreviation
// or legacy rule zone (any case), or "".
func abbrevAdvice(name string) string {
	return zoneAbbrevs[strings.ToUpper(name)]
}

// unknownZone is the error for a zone name the tz database does not have,
// naming the closest names it does have.
func unknownZone(name string, err error) error {
	s := suggestZones(name)
	switch {
	case len(s) == 1 && strings.EqualFold(s[0], name):
		return fmt.Errorf("unknown zone %q; did you mean %s? (zone names are case-sensitive)", name, s[0])
	case len(s) > 0:
		return fmt.Errorf("unknown zone %q; did you mean %s?", name, strings.Join(s, " or "))
	case err != nil && err.Error() != "unknown time zone "+name:
		// Not a missing name: a zoneinfo file that does not parse, say.
		return fmt.Errorf("unknown zone %q: %v", name, err)
	}
	return fmt.Errorf("unknown zone %q: not in the tz database; name an IANA zone such as America/Chicago", name)
}

// suggestZones returns the tz names closest to name, at most three, for an
// "unknown zone" error: the name in its right case if one matches ignoring
// case ("europe/london"); else the zones whose city is name ("Chicago");
// else the names at the smallest edit distance, ignoring case, if it is
// small for the name's length ("America/Chicgo"). The candidates are
// tzNames, the names of the tz database Go embeds (go generate).
func suggestZones(name string) []string {
	lower := strings.ToLower(name)
	if lower == "" {
		return nil
	}
	var city []string
	for _, n := range tzNames {
		ln := strings.ToLower(n)
		if ln == lower {
			return []string{n}
		}
		if !strings.Contains(lower, "/") && ln[strings.LastIndexByte(ln, '/')+1:] == lower {
			city = append(city, n)
		}
	}
	if len(city) > 0 {
		return firstN(city, 3)
	}
	limit := max(2, len(lower)/4)
	best := limit + 1
	var near []string
	for _, n := range tzNames {
		ln := strings.ToLower(n)
		d := editdist.Bounded(lower, ln, best)
		if !strings.Contains(lower, "/") {
			d = min(d, editdist.Bounded(lower, ln[strings.LastIndexByte(ln, '/')+1:], best))
		}
		switch {
		case d < best:
			best, near = d, []string{n}
		case d == best && d <= limit:
			near = append(near, n)
		}
	}
	if best > limit {
		return nil
	}
	slices.Sort(near)
	return firstN(near, 3)
}

func firstN(s []string, n int) []string { return s[:min(len(s), n)] }
