package sqlledger_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/dstsafe/dstsafe/sqlledger"
)

func TestNewBadConfig(t *testing.T) {
	// pgx's driver: New does not connect, so no server is needed.
	db, err := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		name   string
		opts   []sqlledger.Option
		option string
	}{
		{"empty table", []sqlledger.Option{sqlledger.WithTable("")}, "WithTable"},
		{"starts with a digit", []sqlledger.Option{sqlledger.WithTable("2024_runs")}, "WithTable"},
		{"hyphen", []sqlledger.Option{sqlledger.WithTable("job-runs")}, "WithTable"},
		// A table name is spliced into SQL: anything but an identifier is refused.
		{"injection", []sqlledger.Option{sqlledger.WithTable(`runs"; DROP TABLE invoices; --`)}, "WithTable"},
		{"two qualifiers", []sqlledger.Option{sqlledger.WithTable("db.billing.runs")}, "WithTable"},
		{"empty schema", []sqlledger.Option{sqlledger.WithTable(".runs")}, "WithTable"},
		{"too long for PostgreSQL with _schema", []sqlledger.Option{sqlledger.WithTable(strings.Repeat("r", 57))}, "WithTable"},
		{"unknown dialect", []sqlledger.Option{sqlledger.WithDialect(sqlledger.Dialect(9))}, "WithDialect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := sqlledger.New(db, tt.opts...)
			if !errors.Is(err, sqlledger.ErrInvalidConfig) {
				t.Fatalf("New = %v, %v; want ErrInvalidConfig", l, err)
			}
			var ce *sqlledger.ConfigError
			if !errors.As(err, &ce) || ce.Option != tt.option {
				t.Fatalf("New error = %#v, want a *ConfigError for %s", err, tt.option)
			}
		})
	}
	for _, ok := range []string{"billing_runs", "_runs", "public.billing_runs", strings.Repeat("r", 56)} {
		if _, err := sqlledger.New(db, sqlledger.WithTable(ok)); err != nil {
			t.Errorf("WithTable(%q): %v", ok, err)
		}
	}
}

// pgx's driver is detected without a server: New does not connect.
// (The SQLite drivers are detected in package sqlite's tests.)
func TestDetectDialect(t *testing.T) {
	pg, err := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	l, err := sqlledger.New(pg)
	if err != nil || l.Dialect() != sqlledger.PostgreSQL || l.Table() != sqlledger.DefaultTable {
		t.Fatalf("New(pgx db) = %v, %v; want the postgres dialect on %s", l, err, sqlledger.DefaultTable)
	}
	// A nil option is no option.
	if l, err := sqlledger.New(pg, sqlledger.Option{}, sqlledger.WithClock(nil)); err != nil || l.Dialect() != sqlledger.PostgreSQL {
		t.Fatalf("New(pg, Option{}, WithClock(nil)) = %v, %v; want the defaults", l, err)
	}
}
