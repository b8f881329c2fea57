package dstsafe

import (
	"time"

	"github.com/dstsafe/dstsafe/internal/schedlink"
)

// Package calendar's Excluding reads *Cron and *RRule through their
// unexported next (see internal/schedlink for why it is handed over).
func init() {
	schedlink.Set(func(s any, after time.Time) (t, w int64, loc *time.Location, ok, handled bool) {
		var m match
		switch s := s.(type) {
		case *RRule:
			m, ok = s.next(after)
			loc = s.loc
		case *Cron:
			m, ok = s.next(after)
			loc = s.loc
		default:
			return 0, 0, nil, false, false
		}
		return m.t, m.w, loc, ok, true
	})
}
