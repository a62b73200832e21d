package store_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/store"
)

// A database value Perform cannot use is refused with a sentence naming
// the path, the cause and the fix, before SQLite's "unable to open
// database file (14)"; a URL with an unknown scheme is not taken for a
// file name, and its password is never repeated.
func TestOpenSaysWhatIsWrong(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, url string
		want      []string
	}{
		{"missing directory", filepath.Join(tmp, "nope", "perform.db"),
			[]string{filepath.Join(tmp, "nope", "perform.db"), "does not exist", "mkdir -p " + filepath.Join(tmp, "nope")}},
		{"a directory", tmp, []string{tmp + " is a directory", filepath.Join(tmp, "perform.db")}},
		{"parent is a file", filepath.Join(file, "perform.db"), []string{filepath.Join(file, "perform.db"), "not a directory"}},
		{"unknown scheme", "postgress://perform:s3cret@db.example/perform", []string{"postgress://", "postgres://", "file path"}},
		{"sqlite scheme", "sqlite:///var/lib/perform.db", []string{"sqlite://", "postgres://", "file path"}},
	}
	if runtime.GOOS == "linux" {
		// sysfs refuses new files even to root, as a read-only directory would.
		if _, err := os.CreateTemp("/sys", "probe"); err != nil {
			cases = append(cases, struct {
				name, url string
				want      []string
			}{"unwritable directory", "/sys/perform.db", []string{"/sys/perform.db", "cannot create files in /sys", "writable"}})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := store.Open(context.Background(), tc.url, nil)
			if err == nil {
				st.Close()
				t.Fatalf("Open(%q) succeeded", tc.url)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Open(%q) = %q; want it to say %q", tc.url, msg, w)
				}
			}
			if strings.Contains(msg, "(14)") || strings.Contains(msg, "s3cret") {
				t.Errorf("Open(%q) = %q", tc.url, msg)
			}
		})
	}
	if _, err := os.Stat("postgress:"); err == nil {
		t.Error("a directory named postgress: was created")
	}
}

// FuzzCheckScheme: whatever the value, the refusal never depends on what
// follows the scheme (it may hold a password), a postgres URL is never
// refused for its scheme, and a value without "://" never is.
func FuzzCheckScheme(f *testing.F) {
	for _, s := range []string{"postgress://u:pw@h/db", "postgres://u@h/db", "POSTGRESQL://h", "redis://h", "perform.db", "file:perform.db", "a://", "://x", "C:\\data\\perform.db"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		err := store.CheckScheme(v)
		scheme, _, found := strings.Cut(v, "://")
		switch {
		case !found || store.EngineOf(v) == store.EnginePostgres:
			if err != nil {
				t.Fatalf("CheckScheme(%q) = %v", v, err)
			}
		case err != nil:
			// The sentence depends on the scheme alone.
			if bare := store.CheckScheme(scheme + "://"); bare == nil || bare.Error() != err.Error() {
				t.Fatalf("CheckScheme(%q) = %v; for %s:// alone it is %v", v, err, scheme, bare)
			}
		}
	})
}
