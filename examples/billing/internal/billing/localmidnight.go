package billing

import (
	"time"

	"github.com/dstsafe/dstsafe"
)

// LocalMidnight returns the first instant of date d in loc, in UTC: when a
// customer billed "at local midnight" is charged for d. The second incident
// built it with replace(hour=0), which is wrong twice a year in some zones:
//
//   - where the clocks jump from 00:00 to 01:00 (America/Havana in March,
//     Asia/Beirut in March, America/Sao_Paulo on 2018-11-04) midnight never
//     happens; the day starts at the end of the gap, 01:00, and that is the
//     instant returned (Kind Gap);
//   - where the clocks fall back from 01:00 to 00:00 (America/Havana in
//     November) midnight happens twice; the first is returned (Kind Fold),
//     so a customer is billed once, and never at the second midnight.
//
// A day a zone skipped entirely (Pacific/Apia 2011-12-30) has no instant;
// its midnight is the first instant after it, the start of the next day.
// It panics if loc is nil.
func LocalMidnight(d dstsafe.Date, loc *time.Location) (time.Time, dstsafe.Kind) {
	w := dstsafe.Wall{Year: d.Year, Month: d.Month, Day: d.Day}
	if r := dstsafe.Lookup(w, loc); r.Kind == dstsafe.Gap {
		// Not Resolve's Compatible choice (midnight pushed forward by the
		// length of the gap): for a gap that began before midnight that
		// would be later than the first instant of the day.
		return r.Transition.At.UTC(), dstsafe.Gap
	} else {
		// Unique: the one instant; Fold: the first of the two.
		at, err := dstsafe.Resolve(w, loc, dstsafe.Compatible)
		if err != nil {
			// A Date made by ParseDate, DateOf, AddDays or AddMonths is valid.
			panic("billing: invalid date " + d.String() + ": " + err.Error())
		}
		return at.UTC(), r.Kind
	}
}
