package billing

import (
	"database/sql/driver"
	"fmt"
	"time"
)

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
