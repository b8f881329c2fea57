// Package seed is the first postmortem's scheduler.py ("before"), written
// in Go line for line: a loop that wakes every 20 seconds and calls
// tick(time.Now().In(chicago)); job times in a package-level map of
// {hour, minute}; the match nowLocal.Hour() == hm[0] && nowLocal.Minute()
// == hm[1]; and the guard "started less than 10 minutes ago" on a map of
// last starts keyed by job. On 2024-11-03 it ran billing at 01:30 CDT and
// again at 01:30 CST, 70 real minutes later.
package seed

import "time"

var jobs = map[string][2]int{"billing": {1, 30}} // local 01:30

var lastStart = map[string]time.Time{}

func run(name string) {}

func tick(nowLocal time.Time) {
	for name, hm := range jobs {
		due := nowLocal.Hour() == hm[0] && nowLocal.Minute() == hm[1] // want `wallclock: matching the local hour/minute`
		recent := nowLocal.Sub(lastStart[name]) < 10*time.Minute      // want `elapsedguard: an elapsed-time guard`
		if due && !recent {
			lastStart[name] = nowLocal
			run(name)
		}
	}
}

func Main() {
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		panic(err)
	}
	for {
		tick(time.Now().In(chicago))
		time.Sleep(20 * time.Second)
	}
}
