package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress prints "label: 640/1291 subscriptions" at most once a second,
// starting once a run has taken longer than a second. Real time, not the
// replay's fake clock: it is for the person waiting.
type progress struct {
	w          io.Writer
	label      string
	start      time.Time
	last       time.Time
	n          int
	total      int
	printedAny bool
}

func newProgress(w io.Writer, label string) *progress { return &progress{w: w, label: label} }

func (p *progress) report(done, total int) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if p.start.IsZero() || done < p.n {
		p.start, p.last = now, now
	}
	p.n, p.total = done, total
	if now.Sub(p.start) > time.Second && now.Sub(p.last) >= time.Second {
		p.last = now
		p.printedAny = true
		fmt.Fprintf(p.w, "  %s: %d/%d subscriptions\n", p.label, done, total)
	}
}

func (p *progress) done() {
	if p.printedAny {
		fmt.Fprintf(p.w, "  %s: %d/%d subscriptions, done\n", p.label, p.n, p.total)
	}
}

// syncWriter serialises writes: the replays report progress concurrently.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
