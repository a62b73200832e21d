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
// processes. Under -race it is built with -race too: the server is checked
// for races like the tests, and the build reuses the packages the race
// test build already compiled instead of compiling them all again without
// instrumentation.
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
		args := []string{"build", "-o", perform.path}
		if RaceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "./cmd/perform")...)
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
