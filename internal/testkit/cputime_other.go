//go:build !unix

package testkit

import "time"

// ProcessCPU is 0 here: this system's process CPU time is not read.
func ProcessCPU() time.Duration { return 0 }
