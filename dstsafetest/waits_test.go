package dstsafetest_test

import (
	"context"
	"testing"
	"time"
)

// simCtx bounds a simulation in a test by real time, a safety net and
// never a synchronisation (time moves on fake clocks): a simulation that
// never reaches its end (a scheduler that keeps finding work) fails the
// test with SimulateCluster's error, which says how far true time got and
// what had run, instead of running until go test's timeout. Not bounded
// by it: a replica that never goes idle (a job waiting on something no
// clock drives), whose drain then waits on a fake clock that no longer
// moves.
func simCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
