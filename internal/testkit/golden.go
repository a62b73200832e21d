package testkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden holds got to the golden file at path: with update set it writes
// the file and answers "", else it answers "" when the two agree and the
// first line that differs when they do not. A missing file fails t, saying
// to run rerun (the command that writes it).
func Golden(t testing.TB, path string, got []byte, update bool, rerun string) string {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return ""
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run %s", err, rerun)
	}
	if bytes.Equal(got, want) {
		return ""
	}
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, wl, gl)
		}
	}
	return "the files differ only in their line endings"
}
