package dstsafe

import "time"

// Cron is a parsed cron specification with its zone and fold/gap policies.
// It is immutable and safe for concurrent use.
type Cron struct {
	spec string
	loc  *time.Location
}

// CronOption configures ParseCron.
type CronOption func(*cronConfig)

type cronConfig struct{}

// ParseCron parses a cron specification.
func ParseCron(spec string, opts ...CronOption) (*Cron, error) {
	panic("TODO: core implementation lands in the next commit")
}

// Next returns the first firing instant strictly after after, or the zero
// time if the schedule never fires again.
func (c *Cron) Next(after time.Time) time.Time {
	o, ok := c.NextOccurrence(after)
	if !ok {
		return time.Time{}
	}
	return o.At
}

// NextOccurrence returns the first occurrence strictly after after.
func (c *Cron) NextOccurrence(after time.Time) (Occurrence, bool) {
	panic("TODO: core implementation lands in the next commit")
}

// Location returns the schedule's zone.
func (c *Cron) Location() *time.Location { return c.loc }

// String returns the spec as given to ParseCron.
func (c *Cron) String() string { return c.spec }
