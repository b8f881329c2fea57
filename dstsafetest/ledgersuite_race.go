//go:build race

package dstsafetest

import "time"

// contentionBudget is how long ContendedClaim's rounds may take: the race
// detector slows each claim tenfold, and more rounds keep the
// non-atomic-claim check as sharp as without it.
const contentionBudget = 5 * time.Second
