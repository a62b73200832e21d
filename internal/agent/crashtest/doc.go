// Package crashtest kills a real `perform serve` process with SIGKILL in the
// middle of a WhatsApp agent turn, restarts it, and checks that every
// message is answered exactly once and no chunk is sent twice (a trainee's
// backlog of weigh-ins bigger than a turn: each written once); then runs two
// instances on one Postgres and checks that no burst is answered twice.
//
// The tests take minutes (they wait for River to rescue killed jobs), so
// they build only with the crash tag: go test -tags crash ./internal/agent/crashtest.
// .ci/run runs them; the everyday go test ./... does not.
package crashtest
