// Package specgen generates random cron specs for the differential and
// property tests of the root module and of bench/ (against robfig/cron).
package specgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var (
	monthAbbr = []string{"", "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	dayAbbr   = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
)

// anyCase upper- or lower-cases a name at random: both libraries take
// names in any case.
func anyCase(rng *rand.Rand, s string) string {
	switch rng.IntN(3) {
	case 0:
		return strings.ToLower(s)
	case 1:
		return s[:1] + strings.ToLower(s[1:])
	}
	return s
}

// value is a value in [lo, hi], sometimes spelled by name.
func value(rng *rand.Rand, v int, names []string) string {
	if names != nil && names[v] != "" && rng.IntN(3) == 0 {
		return anyCase(rng, names[v])
	}
	return fmt.Sprint(v)
}

// field builds one field over [lo, hi]: a list of *, ?, n, a-b, */s,
// a-b/s and n/s items.
func field(rng *rand.Rand, lo, hi int, names []string) string {
	if rng.IntN(3) == 0 {
		return "*"
	}
	n := 1
	if rng.IntN(3) == 0 {
		n = 2 + rng.IntN(3)
	}
	items := make([]string, n)
	for i := range items {
		a := lo + rng.IntN(hi-lo+1)
		b := a + rng.IntN(hi-a+1)
		s := 1 + rng.IntN(max(1, (hi-lo+1)/2))
		switch rng.IntN(8) {
		case 0:
			items[i] = "*"
		case 1:
			items[i] = "?"
		case 2, 3:
			items[i] = value(rng, a, names)
		case 4:
			items[i] = value(rng, a, names) + "-" + value(rng, b, names)
		case 5:
			items[i] = fmt.Sprintf("*/%d", s)
		case 6:
			items[i] = fmt.Sprintf("%s-%s/%d", value(rng, a, names), value(rng, b, names), s)
		case 7:
			items[i] = fmt.Sprintf("%s/%d", value(rng, a, names), s)
		}
	}
	return strings.Join(items, ",")
}

// Spec is a random five-field spec robfig's ParseStandard accepts;
// with extended, it may also use what only dstsafe accepts (weekday 7,
// Quartz L, LW, nW, nL, n#k, descriptors, @every).
func Spec(rng *rand.Rand, extended bool) string {
	if extended && rng.IntN(10) == 0 {
		return []string{"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
			"@every 90m", "@every 1s", "@every 8760h", "@every 25h"}[rng.IntN(11)]
	}
	dom := field(rng, 1, 31, nil)
	dow := field(rng, 0, 6, dayAbbr)
	if extended {
		quartzDom := func() string {
			return []string{"L", "LW", fmt.Sprintf("%dW", 1+rng.IntN(31)), fmt.Sprint(1 + rng.IntN(31))}[rng.IntN(4)]
		}
		quartzDow := func() string {
			n := value(rng, rng.IntN(7), dayAbbr)
			if rng.IntN(8) == 0 {
				n = "7" // Sunday
			}
			return []string{n + "L", fmt.Sprintf("%s#%d", n, 1+rng.IntN(5)), n}[rng.IntN(3)]
		}
		switch rng.IntN(6) {
		case 0:
			dom = quartzDom()
		case 1:
			dom = quartzDom() + "," + quartzDom()
		case 2:
			dow = quartzDow()
		case 3:
			dow = quartzDow() + "," + quartzDow()
		case 4:
			dom, dow = "?", quartzDow()
		}
	}
	return strings.Join([]string{
		field(rng, 0, 59, nil),
		field(rng, 0, 23, nil),
		dom,
		field(rng, 1, 12, monthAbbr),
		dow,
	}, " ")
}
