// Package crashtest kills a real `perform serve` process with SIGKILL
// while an agent platform's auth-context callback is on its way, restarts
// it, and checks that the callback is delivered after the restart.
//
// The test waits for River to rescue the killed job (up to about a
// minute), so it builds only with the crash tag:
// go test -tags crash ./internal/areas/public/crashtest.
package crashtest
