package testkit

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// RunWaiting runs a package's tests whose time is mostly spent waiting on
// PostgreSQL, Redis or a server, not on the CPU: unless -parallel says
// otherwise, four times as many parallel tests run at once as go test's
// default (the CPUs). Not under -race, where the CPU is what they wait on.
// Call it from TestMain: os.Exit(testkit.RunWaiting(m)).
func RunWaiting(m *testing.M) int {
	return runParallel(m, !RaceEnabled)
}

// RunChildren runs a package's tests that wait on child processes built
// without -race (PerformBinary) and on their timers (River's rescue, a
// stale claim's takeover): four times the CPUs at once, under -race too,
// where the test binary's own CPU is small beside that wait. Call it from
// TestMain: os.Exit(testkit.RunChildren(m)).
func RunChildren(m *testing.M) int {
	return runParallel(m, true)
}

func runParallel(m *testing.M, raise bool) int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && raise {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	return m.Run()
}
