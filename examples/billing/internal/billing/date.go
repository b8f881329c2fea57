package billing

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// Date is a civil date: a billing period, a next_billing_date. It is not an
// instant; In and LocalMidnight turn it into one in a given zone.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate parses "2024-11-03".
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("billing: invalid date %q: %w", s, err)
	}
	return DateOf(t), nil
}

// DateOf returns the date t reads in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// String returns "2024-11-03".
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// AddDays returns the date n days later.
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC))
}

// AddMonth returns the same day next month, clamped to the month's last day
// (2024-01-31 -> 2024-02-29): a monthly subscription's next period.
func (d Date) AddMonth() Date {
	first := time.Date(d.Year, d.Month+1, 1, 12, 0, 0, 0, time.UTC)
	last := time.Date(d.Year, d.Month+2, 0, 12, 0, 0, 0, time.UTC).Day()
	return Date{first.Year(), first.Month(), min(d.Day, last)}
}

// MarshalText makes a Date "2024-11-03" in JSON.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses "2024-11-03".
func (d *Date) UnmarshalText(b []byte) error {
	p, err := ParseDate(string(b))
	*d = p
	return err
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.String() < e.String() }

// Value stores a Date as "2024-11-03": TEXT on SQLite, DATE on PostgreSQL.
func (d Date) Value() (driver.Value, error) { return d.String(), nil }

// Scan reads a DATE (PostgreSQL returns a time.Time at UTC midnight) or a
// "2024-11-03" TEXT (SQLite).
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d = DateOf(v)
		return nil
	case string:
		p, err := ParseDate(v)
		*d = p
		return err
	case []byte:
		p, err := ParseDate(string(v))
		*d = p
		return err
	}
	return fmt.Errorf("billing: cannot scan %T into a Date", src)
}

// utc stores an instant in UTC: a fixed-width, sortable
// "2024-11-03T07:30:00Z" TEXT on SQLite, a TIMESTAMPTZ on PostgreSQL.
type utc time.Time

const utcLayout = "2006-01-02T15:04:05Z"

func (t utc) Value() (driver.Value, error) { return time.Time(t).UTC().Format(utcLayout), nil }

func (t *utc) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*t = utc(v.UTC())
		return nil
	case string:
		p, err := time.Parse(utcLayout, v)
		*t = utc(p)
		return err
	case []byte:
		p, err := time.Parse(utcLayout, string(v))
		*t = utc(p)
		return err
	}
	return fmt.Errorf("billing: cannot scan %T into a time", src)
}
