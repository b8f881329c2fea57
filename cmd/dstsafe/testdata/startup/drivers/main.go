// Command drivers is core with the three ledger backends exec links
// (SQLite, PostgreSQL, Redis) and nothing else: the floor of a binary that
// can open any of them (BenchmarkExecOverhead). With "postgres DSN" or
// "redis ADDR" it also connects and pings once: the connection set-up,
// which exec's PostgreSQL and Redis runs include.
package main

import (
	"context"
	"database/sql"
	"os"
	"time"
	_ "time/tzdata"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	_ "github.com/dstsafe/dstsafe/redisledger"
	_ "github.com/dstsafe/dstsafe/sqlledger"
	_ "github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

func main() {
	c, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		os.Exit(2)
	}
	if _, ok := c.NextOccurrence(time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)); !ok {
		os.Exit(2)
	}
	if len(os.Args) < 3 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch os.Args[1] {
	case "postgres":
		db, err := sql.Open("pgx", os.Args[2])
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err != nil {
			os.Exit(1)
		}
	case "redis":
		cl := redis.NewClient(&redis.Options{Addr: os.Args[2]})
		err := cl.Ping(ctx).Err()
		cl.Close()
		if err != nil {
			os.Exit(1)
		}
	default:
		os.Exit(2)
	}
}
