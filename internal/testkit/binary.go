package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var perform struct {
	once sync.Once
	path string
	err  string
}

// PerformBinary builds ./cmd/perform once per test binary and returns its
// path, for tests that run, kill and restart real `perform serve`
// processes. It is built without -race even under -race: these tests are
// about what a kill or a second instance leaves behind, and the race
// detector slowed every child several times over (the crash tests took six
// minutes of a -race run); the server's code is raced in-process by the
// tests of internal/server, lane, agent and mcpserver. The build reuses
// the packages go vet or an earlier go build compiled.
func PerformBinary(t testing.TB) string {
	t.Helper()
	perform.once.Do(func() {
		dir, err := os.MkdirTemp("", "perform-bin-")
		if err != nil {
			perform.err = err.Error()
			return
		}
		perform.path = filepath.Join(dir, "perform")
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-o", perform.path, "./cmd/perform")
		cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			perform.err = strings.Join(cmd.Args, " ") + ": " + err.Error() + "\n" + string(out)
		}
	})
	if perform.err != "" {
		t.Fatal(perform.err)
	}
	return perform.path
}
