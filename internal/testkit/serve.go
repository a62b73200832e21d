package testkit

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Served is one running `perform serve` (the binary PerformBinary builds),
// for tests that kill and restart real servers.
type Served struct {
	// URL is the server's root, http://127.0.0.1:PORT.
	URL  string
	cmd  *exec.Cmd
	done chan struct{}
}

// Serve starts `perform serve` on a free port with JSON logs, a rate limit
// no test reaches and env added, and waits until it logs that it serves
// (60 s at most). Each log line is handed, parsed, to onLine when it is not
// nil, and logged under name with -v. The server is killed at the test's
// end if it still runs.
func Serve(t testing.TB, name string, env []string, onLine func(line map[string]any)) *Served {
	t.Helper()
	cmd := exec.Command(PerformBinary(t), "serve")
	cmd.Env = append(append(os.Environ(), "PORT=0", "LOG_FORMAT=json", "LOG_LEVEL=info", "RATE_LIMIT_MAX=100000"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Served{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				if line["msg"] == "perform serving" {
					a, _ := line["address"].(string)
					addr <- a
				}
				if onLine != nil {
					onLine(line)
				}
			}
			if testing.Verbose() {
				t.Logf("[%s] %s", name, sc.Text())
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Kill)
	select {
	case a := <-addr:
		s.URL = "http://127.0.0.1:" + a[strings.LastIndex(a, ":")+1:]
	case <-s.done:
		t.Fatalf("perform serve (%s) exited before serving", name)
	case <-time.After(60 * time.Second):
		t.Fatalf("perform serve (%s) did not start in 60s", name)
	}
	return s
}

// Kill is SIGKILL: no shutdown, no flush, no lease released. It returns
// once the process is gone.
func (s *Served) Kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-s.done
}
