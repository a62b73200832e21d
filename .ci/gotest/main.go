// Command gotest reads `go test -json` on stdin and prints what a plain
// `go test` prints (package results, and the output of failing tests). It
// exits 1 if a test failed or if any test was skipped because a service
// variable (PERFORM_TEST_POSTGRES_URL, PERFORM_TEST_REDIS_URL) was unset or
// redis-server was not installed:
// CI must run the Postgres and Redis tests, never pass without them.
//
//	go test -json ./... | (cd .ci/gotest && go run .)
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// services are the variables whose absence must not pass unnoticed.
var services = []string{"PERFORM_TEST_POSTGRES_URL", "PERFORM_TEST_REDIS_URL"}

// missing are the other skip reasons CI must not pass with: the Redis
// outage tests start their own redis-server (redistest).
var missing = append([]string{"redis-server is not on PATH"}, services...)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	failed, skipped, err := filter(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotest:", err)
		os.Exit(2)
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		fmt.Fprintf(os.Stderr, "CI: %d tests were skipped for want of Postgres or Redis; export %s, and have redis-server on PATH:\n", len(skipped), strings.Join(services, " and "))
		for _, s := range skipped {
			fmt.Fprintln(os.Stderr, "  "+s)
		}
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// filter copies the plain output of the event stream r to w and returns
// whether anything failed and which tests skipped for a missing service.
func filter(r io.Reader, w io.Writer) (failed bool, skipped []string, err error) {
	type key struct{ pkg, test string }
	out := map[key]*strings.Builder{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if json.Unmarshal(line, &ev) != nil || ev.Action == "" {
			fmt.Fprintln(w, string(line)) // not an event: pass it on
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "build-output":
			fmt.Fprint(w, ev.Output)
		case "build-fail":
			failed = true
		case "output":
			if ev.Test == "" {
				if strings.TrimSpace(ev.Output) != "PASS" {
					fmt.Fprint(w, ev.Output)
				}
				continue
			}
			if out[k] == nil {
				out[k] = &strings.Builder{}
			}
			out[k].WriteString(ev.Output)
		case "fail":
			failed = true
			if b := out[k]; b != nil {
				fmt.Fprint(w, b.String())
			}
			delete(out, k)
		case "skip":
			if b := out[k]; b != nil && ev.Test != "" {
				for _, s := range missing {
					if strings.Contains(b.String(), s) {
						skipped = append(skipped, ev.Package+" "+ev.Test)
						break
					}
				}
			}
			delete(out, k)
		case "pass":
			delete(out, k)
		}
	}
	return failed, skipped, sc.Err()
}
