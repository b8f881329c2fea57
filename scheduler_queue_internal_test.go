package dstsafe

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The due queue against a sorted slice: random pushes, pops and removals
// (a job edited or removed while queued) always pop the earliest due
// instant, ties in Add order, and keep every job's index right.
func TestDueQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC)
	var q dueQueue
	var ref []*job // what the queue holds, in no order
	seq := uint64(0)
	for step := range 20000 {
		switch op := r.IntN(10); {
		case op < 5 || len(ref) == 0:
			seq++
			// Few distinct instants, so ties happen; nanoseconds too.
			due := base.Add(time.Duration(r.IntN(50))*time.Second + time.Duration(r.IntN(3)))
			j := &job{seq: seq, qi: -1}
			q.push(j, due)
			ref = append(ref, j)
		case op < 8:
			slices.SortFunc(ref, func(a, b *job) int {
				if c := a.due.Compare(b.due); c != 0 {
					return c
				}
				return int(a.seq) - int(b.seq)
			})
			got := q.pop()
			if got != ref[0] {
				t.Fatalf("step %d: popped seq %d due %v, want seq %d due %v", step, got.seq, got.due, ref[0].seq, ref[0].due)
			}
			if got.qi != -1 {
				t.Fatalf("step %d: popped job keeps index %d", step, got.qi)
			}
			ref = ref[1:]
		default:
			k := r.IntN(len(ref))
			q.remove(ref[k])
			ref = slices.Delete(ref, k, k+1)
		}
		if q.Len() != len(ref) {
			t.Fatalf("step %d: %d queued, want %d", step, q.Len(), len(ref))
		}
		for i, e := range q.e {
			if e.j.qi != i {
				t.Fatalf("step %d: job at %d has index %d", step, i, e.j.qi)
			}
		}
	}
}
