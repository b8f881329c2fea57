//go:build unix

package dstsafe_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the test process has used:
// unlike wall time, it does not count what other processes on a shared
// machine take.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
