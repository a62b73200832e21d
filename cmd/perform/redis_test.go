package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/ratelimit/redistest"
)

// TestServeRefusesABadRedisInOneSentence starts perform serve as a process
// on Redis URLs that cannot work: it exits with Perform's sentence naming
// the fix, and go-redis's own pool lines ("redis: … pool.go … failed to
// dial") do not come before it.
func TestServeRefusesABadRedisInOneSentence(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	cases := []struct {
		name, url, want, not string
	}{
		{"nothing listens", "redis://127.0.0.1:1/0", "does not answer", ""},
		{"no such database", rs.URL(99), "has no database 99", "start it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), asCommand+"=1", "PERFORM_TEST_ARGS=serve --port 0 --host 127.0.0.1 --redis-url "+c.url,
				"PERFORM_DATABASE_URL="+filepath.Join(t.TempDir(), "perform.db"), "LOG_FORMAT=json", "LOG_LEVEL=warn")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("serve started on %s:\n%s", c.url, out)
			}
			text := string(out)
			if strings.Contains(text, "pool.go") || strings.Contains(text, "redis: ") {
				t.Errorf("go-redis's own log lines reached stderr:\n%s", text)
			}
			if !strings.Contains(text, c.want) || !strings.Contains(text, "PERFORM_REDIS_URL") {
				t.Errorf("the output lacks %q naming PERFORM_REDIS_URL:\n%s", c.want, text)
			}
			if c.not != "" && strings.Contains(text, c.not) {
				t.Errorf("the output says %q:\n%s", c.not, text)
			}
		})
	}
}
