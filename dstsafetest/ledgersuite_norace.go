//go:build !race

package dstsafetest

import "time"

// contentionBudget: see ledgersuite_race.go.
const contentionBudget = time.Second
