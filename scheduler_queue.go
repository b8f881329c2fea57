package dstsafe

import "time"

// dueQueue is a min-heap of jobs by the instant they come due next (ties
// in the order they were added), so the loop finds the due jobs in
// O(log N) each instead of walking all N. The keys live in the heap's
// array, not behind the job pointers, so a sift touches one cache line per
// level; it is 4-ary, halving the levels of a binary heap.
type dueQueue struct {
	e []qentry
}

type qentry struct {
	sec  int64
	nsec int32
	seq  uint64
	j    *job
}

func (a *qentry) less(b *qentry) bool {
	if a.sec != b.sec {
		return a.sec < b.sec
	}
	if a.nsec != b.nsec {
		return a.nsec < b.nsec
	}
	return a.seq < b.seq
}

func (q *dueQueue) Len() int { return len(q.e) }

// peek returns the job due first; the queue must not be empty.
func (q *dueQueue) peek() *job { return q.e[0].j }

func (q *dueQueue) push(j *job, due time.Time) {
	j.due = due
	q.e = append(q.e, qentry{sec: due.Unix(), nsec: int32(due.Nanosecond()), seq: j.seq, j: j})
	q.up(len(q.e) - 1)
}

func (q *dueQueue) pop() *job {
	j := q.e[0].j
	q.removeAt(0)
	return j
}

func (q *dueQueue) remove(j *job) { q.removeAt(j.qi) }

func (q *dueQueue) removeAt(i int) {
	j := q.e[i].j
	last := len(q.e) - 1
	if i != last {
		q.e[i] = q.e[last]
		q.e[i].j.qi = i
	}
	q.e[last] = qentry{}
	q.e = q.e[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
	j.qi = -1
}

func (q *dueQueue) up(i int) {
	x := q.e[i]
	for i > 0 {
		p := (i - 1) / 4
		if !x.less(&q.e[p]) {
			break
		}
		q.e[i] = q.e[p]
		q.e[i].j.qi = i
		i = p
	}
	q.e[i] = x
	x.j.qi = i
}

func (q *dueQueue) down(i int) {
	n := len(q.e)
	x := q.e[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if q.e[k].less(&q.e[m]) {
				m = k
			}
		}
		if !q.e[m].less(&x) {
			break
		}
		q.e[i] = q.e[m]
		q.e[i].j.qi = i
		i = m
	}
	q.e[i] = x
	x.j.qi = i
}
