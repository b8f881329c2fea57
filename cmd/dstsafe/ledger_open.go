package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for --postgres
	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/redisledger"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// openLedger opens the ledger the backend flags name, reading time from
// the CLI's clock (a lease is over when the CLI's now says so), or, with
// c.storeClock, from the ledger's default clock. The returned function
// closes it.
func openLedger(ctx context.Context, c *cmdContext, f *ledgerFlags) (dstsafe.ControlLedger, func(), error) {
	if f.url == "" && f.sqlite == "" && f.postgres == "" && f.redis == "" {
		f.url = os.Getenv("DSTSAFE_LEDGER")
	}
	if f.url != "" {
		if f.sqlite != "" || f.postgres != "" || f.redis != "" {
			return nil, nil, usagef("give --ledger or one of --sqlite, --postgres and --redis, not both")
		}
		if err := parseLedgerURL(f.url, f); err != nil {
			return nil, nil, err
		}
	}
	named := 0
	for _, v := range []string{f.sqlite, f.postgres, f.redis} {
		if v != "" {
			named++
		}
	}
	switch named {
	case 0:
		return nil, nil, usagef("name the ledger: one of --sqlite PATH, --postgres DSN, --redis ADDR")
	case 1:
	default:
		return nil, nil, usagef("give one of --sqlite, --postgres and --redis, not %d", named)
	}
	// nil: the ledger keeps its own default clock (the store's).
	var clock dstsafe.Clock
	if !c.storeClock {
		clock = cliClock{c.now}
	}
	if f.redis != "" {
		if f.table != "" {
			return nil, nil, usagef("--table is for --sqlite and --postgres; a Redis ledger takes --prefix")
		}
		if f.migrate {
			return nil, nil, usagef("--migrate is for --sqlite and --postgres; a Redis ledger has no schema")
		}
		return openRedis(ctx, f, clock)
	}
	if f.prefix != "" {
		return nil, nil, usagef("--prefix is for --redis; a SQL ledger takes --table")
	}
	table := f.table
	if table == "" {
		table = sqlledger.DefaultTable
	}
	opts := []sqlledger.Option{sqlledger.WithTable(table)}
	if clock != nil {
		opts = append(opts, sqlledger.WithClock(clock))
	}
	var (
		l   *sqlledger.Ledger
		err error
	)
	if f.sqlite != "" {
		st, serr := os.Stat(f.sqlite)
		switch {
		case serr != nil:
			return nil, nil, usagef("bad --sqlite %q: %v (the CLI never creates a ledger)", f.sqlite, unwrapPathErr(serr))
		case st.IsDir():
			return nil, nil, usagef("bad --sqlite %q: a directory, not the ledger's file", f.sqlite)
		}
		l, err = sqlite.OpenSQLite(f.sqlite, opts...)
	} else {
		db, oerr := sql.Open("pgx", f.postgres)
		if oerr != nil {
			return nil, nil, usagef("bad --postgres: %v", oerr)
		}
		if l, err = sqlledger.New(db, append(opts, sqlledger.WithDialect(sqlledger.PostgreSQL))...); err != nil {
			db.Close()
		}
	}
	var ce *sqlledger.ConfigError
	if errors.As(err, &ce) {
		return nil, nil, usagef("bad --%s %q: %s", map[string]string{"WithTable": "table"}[ce.Option], ce.Value, ce.Reason)
	}
	if err != nil {
		return nil, nil, err
	}
	closeAll := func() {
		l.Close()
		if f.postgres != "" {
			l.DB().Close()
		}
	}
	if err := sqlReady(ctx, l, f.migrate); err != nil {
		closeAll()
		return nil, nil, err
	}
	return l, closeAll, nil
}

// sqlReady migrates the ledger (--migrate) or checks that its schema is
// the one this build needs.
func sqlReady(ctx context.Context, l *sqlledger.Ledger, migrate bool) error {
	if migrate {
		return l.Migrate(ctx)
	}
	v, err := l.Version(ctx)
	switch {
	case err != nil:
		return err
	case v == 0:
		return fmt.Errorf("no ledger table %s there: a wrong --table, or no service ever migrated it (--migrate creates it)", l.Table())
	case v < sqlledger.SchemaVersion:
		return fmt.Errorf("ledger %s at schema version %d, this dstsafe needs %d: --migrate upgrades it in place, as the new services' Migrate would (safe while services run)",
			l.Table(), v, sqlledger.SchemaVersion)
	case v > sqlledger.SchemaVersion:
		return fmt.Errorf("ledger %s at schema version %d, newer than this dstsafe knows (%d): use a newer dstsafe", l.Table(), v, sqlledger.SchemaVersion)
	}
	return nil
}

func openRedis(ctx context.Context, f *ledgerFlags, clock dstsafe.Clock) (dstsafe.ControlLedger, func(), error) {
	opt := &redis.Options{Addr: f.redis}
	if strings.Contains(f.redis, "://") {
		var err error
		if opt, err = redis.ParseURL(f.redis); err != nil {
			return nil, nil, usagef("bad --redis %q: %v", f.redis, err)
		}
	}
	client := redis.NewClient(opt)
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("redis at %s: %w", f.redis, err)
	}
	var opts []redisledger.Option
	if clock != nil {
		opts = append(opts, redisledger.WithClock(clock))
	}
	if f.prefix != "" {
		opts = append(opts, redisledger.WithKeyPrefix(f.prefix))
	}
	l, err := redisledger.New(client, opts...)
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	return l, func() { client.Close() }, nil
}

// cliClock is the ledger's clock: the CLI's now. Ledgers read the
// instant only; a timer, never asked for, would be the real clock's.
type cliClock struct{ now func() time.Time }

func (k cliClock) Now() time.Time { return k.now() }

func (k cliClock) NewTimer(d time.Duration) clockwork.Timer {
	return clockwork.NewRealClock().NewTimer(d)
}
