package dstsafe_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dstsafe/dstsafe"
)

// suggestionsFor returns the names the "unknown zone" error of a cron
// spec in zone name suggests, in order: nil when it suggests none.
func suggestionsFor(t *testing.T, name string) []string {
	t.Helper()
	_, err := dstsafe.ParseCron("CRON_TZ=" + name + " 30 1 * * *")
	var pe *dstsafe.ParseError
	if !errors.As(err, &pe) || pe.Field != "zone" {
		t.Fatalf("ParseCron with zone %q = %v; want a *ParseError on the zone", name, err)
	}
	// The message is the feature: `unknown zone "X"; did you mean A or B?`.
	_, list, ok := strings.Cut(pe.Reason, "; did you mean ")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "?")
	return strings.Split(list, " or ")
}

// A near-miss names the zone it misses, alone, when that zone is clearly
// the closest: a worse candidate met before it must not stay in the
// answer. The rows are names whose worse candidates sort first.
func TestZoneSuggestionsNearMiss(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		// One letter short. America/Noronha (distance 3 in 14) sorts
		// before America/Toronto (distance 1).
		{"America/Toront", []string{"America/Toronto"}},
		// Alaska's Sitka; America/Adak, America/Atka and America/Lima
		// (distance 2) sort before it (distance 1).
		{"America/Sitk", []string{"America/Sitka"}},
		// Tasmania with a letter dropped: Australia/Hobart.
		{"Australia/Hobrt", []string{"Australia/Hobart"}},
		// One letter short of Paris.
		{"Europe/Pari", []string{"Europe/Paris"}},
		// Kyiv's two names are equally close to a transposed Kiev: both
		// are offered, sorted.
		{"Europe/Kive", []string{"Europe/Kiev", "Europe/Kyiv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := suggestionsFor(t, tc.name); !slices.Equal(got, tc.want) {
				t.Errorf("suggestions for %q: got %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

// Property over the whole tz database: for each zone name with its last
// letter dropped (a name that does not load), every suggestion is at the
// smallest edit distance (ignoring case) of any tz name, and the zone
// itself is suggested whenever it is alone at that distance. The distance
// is computed here, independently of the library's bounded one.
func TestZoneSuggestionsAreTheClosest(t *testing.T) {
	names := dstsafe.TZNames
	known := map[string]bool{}
	for _, n := range names {
		known[strings.ToLower(n)] = true
	}
	checked, bad := 0, 0
	for _, zone := range names {
		if bad > 10 {
			break // one screenful is enough
		}
		if !strings.Contains(zone, "/") || len(zone) < 10 {
			continue
		}
		miss := zone[:len(zone)-1]
		if known[strings.ToLower(miss)] {
			continue
		}
		lower := strings.ToLower(miss)
		best, at := -1, map[string]int{}
		for _, n := range names {
			d := levenshtein(lower, strings.ToLower(n))
			at[n] = d
			if best < 0 || d < best {
				best = d
			}
		}
		var closest []string
		for _, n := range names {
			if at[n] == best {
				closest = append(closest, n)
			}
		}
		got := suggestionsFor(t, miss)
		checked++
		for _, s := range got {
			if at[s] != best {
				bad++
				t.Errorf("%q (from %s): suggested %s at distance %d, but %v are at %d", miss, zone, s, at[s], closest, best)
			}
		}
		if len(closest) == 1 && !slices.Equal(got, closest) {
			bad++
			t.Errorf("%q (from %s): suggestions %q, want only %s", miss, zone, got, closest[0])
		}
	}
	if bad == 0 && checked < 400 {
		t.Fatalf("only %d near-miss names checked", checked)
	}
}

// levenshtein is the textbook edit distance in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
