// Package clockutil is a helper package the cross-package corpus cases
// import: the current time leaves it through a function, a method, a
// struct field set in a composite literal and a map's elements, and the
// analyzers see it in the importing package through analysis facts. It
// holds no case itself.
package clockutil

import (
	"time"

	"github.com/jonboulle/clockwork"
)

var chicago, _ = time.LoadLocation("America/Chicago")

// Chicago returns the current time in America/Chicago.
func Chicago() time.Time { return time.Now().In(chicago) }

// Local reads a clock in a zone.
type Local struct {
	Clock clockwork.Clock
	Loc   *time.Location
}

// Current returns the clock's current time in the zone.
func (l Local) Current() time.Time { return l.Clock.Now().In(l.Loc) }

// Tick is one wake-up of a poller.
type Tick struct {
	At  time.Time
	Seq int
}

// Ticks sends a Tick every d.
func Ticks(d time.Duration) <-chan Tick {
	ch := make(chan Tick)
	go func() {
		seq := 0
		for t := range time.Tick(d) {
			seq++
			ch <- Tick{At: t, Seq: seq}
		}
	}()
	return ch
}

// Last holds the last start of each job.
var Last = map[string]time.Time{}

// Mark records that a job starts now.
func Mark(name string) { Last[name] = time.Now() }
