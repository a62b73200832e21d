package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asCommand makes the test binary act as the perform command (running
// main with the arguments in PERFORM_TEST_ARGS), so a test can run it as a
// real process without building it.
const asCommand = "PERFORM_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		os.Args = append([]string{"perform"}, strings.Fields(os.Getenv("PERFORM_TEST_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

// TestServeStopsOnSIGTERM runs perform serve as a process and sends it
// SIGTERM: it drains, logs that it stopped and exits 0.
func TestServeStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), asCommand+"=1", "PERFORM_TEST_ARGS=serve --port 0 --host 127.0.0.1",
		"PERFORM_DATABASE_URL="+filepath.Join(dir, "perform.db"), "LOG_FORMAT=json", "PERFORM_REDIS_URL=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	lines := bufio.NewScanner(stderr)
	var url string
	var stopped bool
	for lines.Scan() {
		var entry struct {
			Msg    string `json:"msg"`
			URL    string `json:"url"`
			Engine string `json:"engine"`
		}
		if json.Unmarshal(lines.Bytes(), &entry) != nil {
			t.Fatalf("a log line is not JSON: %s", lines.Text())
		}
		switch entry.Msg {
		case "perform serving":
			if entry.Engine != "sqlite" {
				t.Errorf("engine %q", entry.Engine)
			}
			url = entry.URL
			res, err := http.Get(url + "/healthz")
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("/healthz: %v %v", res, err)
			}
			res.Body.Close()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		case "perform stopped":
			stopped = true
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("perform serve exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("perform serve did not exit after SIGTERM")
	}
	if url == "" || !stopped {
		t.Fatalf("served at %q, stopped %v", url, stopped)
	}
}
