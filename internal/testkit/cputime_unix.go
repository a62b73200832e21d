//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used, user and system. On a
// busy or shared machine it measures a benchmark's own work where wall time
// also counts the wait for a core; 0 where the system does not say.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
