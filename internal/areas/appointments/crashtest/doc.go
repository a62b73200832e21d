// Package crashtest kills a real `perform serve` process with SIGKILL in
// the middle of a burst of bookings, restarts it, sends every booking
// again under its Idempotency-Key, and checks that no acknowledged booking
// was lost and none was made twice, with one credit used for each.
//
// The test waits for the killed server's Idempotency-Key claims to go
// stale (about a minute), so it builds only with the crash tag:
// go test -tags crash ./internal/areas/appointments/crashtest.
package crashtest
