//go:build unix

package store_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used (user and system). On a
// busy machine it measures a benchmark's own work where wall time also
// counts the wait for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
