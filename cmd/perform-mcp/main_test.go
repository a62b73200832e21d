package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/tools"
)

// binary is perform-mcp built once for the tests that run it.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "perform-mcp-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "perform-mcp")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestLinksNoDatabaseOrServerConfiguration keeps the stdio binary to the
// tool definitions and the lane client.
func TestLinksNoDatabaseOrServerConfiguration(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{
		"database/sql", "github.com/jackc/pgx", "github.com/lib/pq", "modernc.org/sqlite", "github.com/mattn/go-sqlite3",
		"github.com/riverqueue/", "github.com/redis/",
		"github.com/otherwise/perform/internal/store", "github.com/otherwise/perform/internal/config",
		"github.com/otherwise/perform/internal/lane", "github.com/otherwise/perform/internal/server",
	}
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
				t.Errorf("perform-mcp links %s", dep)
			}
		}
	}
	if !strings.Contains(string(out), "github.com/otherwise/perform/internal/tools\n") {
		t.Error("go list -deps did not list the tool definitions; is the check looking at the right package?")
	}
}

// runBinary runs perform-mcp with env and no client; it must exit by itself.
func runBinary(t *testing.T, env ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errOut.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

func TestStartupFailuresAreOneSentenceAndNonZeroExit(t *testing.T) {
	f := mcptest.New(t)
	down := "http://127.0.0.1:1"
	cases := []struct {
		name string
		env  []string
		want []string
	}{
		{"missing key", nil, []string{"PERFORM_API_KEY is not set", "perform key create --studio SLUG --name NAME"}},
		{"empty key", []string{"PERFORM_API_KEY=  "}, []string{"PERFORM_API_KEY is not set"}},
		{"wrong key", []string{"PERFORM_API_KEY=pf_live_" + strings.Repeat("w", 43), "PERFORM_API_URL=" + f.URL},
			[]string{"refused PERFORM_API_KEY", "invalid partner api key", "perform key create"}},
		{"not a key", []string{"PERFORM_API_KEY=hello", "PERFORM_API_URL=" + f.URL}, []string{"refused PERFORM_API_KEY"}},
		{"server down", []string{"PERFORM_API_KEY=" + f.A.Key, "PERFORM_API_URL=" + down}, []string{"could not be reached", "PERFORM_API_URL"}},
		{"bad URL", []string{"PERFORM_API_KEY=" + f.A.Key, "PERFORM_API_URL=localhost:8080"}, []string{"PERFORM_API_URL", "is not a server URL"}},
		{"not Perform", []string{"PERFORM_API_KEY=" + f.A.Key, "PERFORM_API_URL=" + f.URL + "/nothing-here"}, []string{"without the lane's JSON envelope"}},
	}
	for _, c := range cases {
		code, stdout, stderr := runBinary(t, c.env...)
		if code == 0 {
			t.Errorf("%s: exit 0", c.name)
		}
		if stdout != "" {
			t.Errorf("%s: wrote to stdout, which belongs to the protocol: %q", c.name, stdout)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: stderr is not one line: %q", c.name, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q does not mention %q", c.name, stderr, w)
			}
		}
	}
}

func connectStdio(t testing.TB, url, key string, stderr *bytes.Buffer) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = []string{"PERFORM_API_KEY=" + key, "PERFORM_API_URL=" + url}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "perform-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v (stderr %q)", err, stderr)
	}
	return cs
}

func TestStdioServesTheToolsWithTheKeysStudio(t *testing.T) {
	f := mcptest.New(t)
	var stderr bytes.Buffer
	cs := connectStdio(t, f.URL, f.A.Key, &stderr)
	defer cs.Close()

	list, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) != len(tools.All()) {
		t.Fatalf("tools/list: %v (%d tools)", err, len(list.Tools))
	}
	// The server info names the Perform server's icon and site.
	if info := cs.InitializeResult().ServerInfo; info.WebsiteURL != f.URL || len(info.Icons) != 1 || info.Icons[0].Source != f.URL+"/icon.png" {
		t.Errorf("server info %+v", info)
	}
	for _, pasted := range []string{f.URL + "/v1/automation/", f.URL + "/mcp"} {
		var errOut bytes.Buffer
		other := connectStdio(t, pasted, f.A.Key, &errOut)
		if res := mcptest.Call(t, other, "list_tags", nil); res.IsError {
			t.Errorf("PERFORM_API_URL=%s: %s", pasted, mcptest.Text(res))
		}
		other.Close()
	}
	for _, tool := range list.Tools {
		a := tool.Annotations
		// Every hint is explicit: nothing is destructive, and no coach tool reaches outside the studio.
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: annotations %+v", tool.Name, tool.Annotations)
		}
	}
	res := mcptest.Call(t, cs, "get_trainee", map[string]any{"traineeId": f.A.TraineeID})
	if res.IsError || !strings.Contains(mcptest.Text(res), f.A.TraineeLastName) {
		t.Errorf("get_trainee: %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "update_task", map[string]any{"taskId": f.A.TaskID, "status": "snoozed", "snoozeUntil": "2030-01-01T09:00:00Z"})
	if res.IsError || !strings.Contains(mcptest.Text(res), `"snoozed"`) {
		t.Errorf("update_task: %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "get_trainee", map[string]any{"traineeId": f.B.TraineeID})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "search_trainees") || strings.Contains(mcptest.Text(res), f.B.TraineeLastName) {
		t.Errorf("another studio's trainee: %v %s", res.IsError, mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "list_trainee_weights", map[string]any{"traineeId": f.A.TraineeID, "limit": 0})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "limit") {
		t.Errorf("bad limit: %s", mcptest.Text(res))
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if log := stderr.String(); !strings.Contains(log, f.A.Name) || !strings.Contains(log, "("+f.A.Slug+")") {
		t.Errorf("stderr does not name the studio: %q", log)
	}
}

// BenchmarkColdStartToToolsList starts perform-mcp, initializes and lists the
// tools, then closes: the time a coach's client waits on every launch.
func BenchmarkColdStartToToolsList(b *testing.B) {
	f := mcptest.New(b)
	var stderr bytes.Buffer
	var toList time.Duration
	for b.Loop() {
		start := time.Now()
		cs := connectStdio(b, f.URL, f.A.Key, &stderr)
		if list, err := cs.ListTools(context.Background(), nil); err != nil || len(list.Tools) != len(tools.All()) {
			b.Fatalf("tools/list: %v", err)
		}
		toList += time.Since(start)
		cs.Close()
	}
	b.ReportMetric(float64(toList.Microseconds())/1000/float64(b.N), "ms-to-tools-list")
}

// -h prints the usage, not the missing-key sentence; --version names the
// build; any other argument is a usage mistake. None needs a key.
func TestHelpAndVersionNeedNoKey(t *testing.T) {
	for _, tc := range []struct {
		arg       string
		code      int
		stdout    string
		stderrHas string
	}{
		{"-h", 0, "PERFORM_API_KEY  required", ""},
		{"--help", 0, "Usage: perform-mcp", ""},
		{"--version", 0, "perform-mcp ", ""},
		{"--bogus", 2, "", "perform-mcp takes no arguments"},
	} {
		cmd := exec.Command(binary, tc.arg)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errOut.String(), tc.stderrHas) ||
			strings.Contains(errOut.String(), "is not set") {
			t.Errorf("perform-mcp %s: exit %d, stdout %q, stderr %q", tc.arg, code, out.String(), errOut.String())
		}
	}
}
