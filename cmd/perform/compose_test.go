package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyTheCommandComposesTheServer: no package under internal/ but the
// server itself depends on internal/server (internal/oauth used to import
// it to mount itself). Which parts mount, in which order, is this
// command's to say (pluginsWith); a part that imported the server could
// plug itself in where the command cannot see it.
func TestOnlyTheCommandComposesTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	const serverPkg = "github.com/otherwise/perform/internal/server"
	// One line per package: its path, then every package it depends on.
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "../../internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var seen int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == serverPkg {
			continue
		}
		seen++
		for _, dep := range fields[1:] {
			if dep == serverPkg {
				t.Errorf("%s depends on internal/server: take what it needs as a value cmd/perform hands it (as oauth.Host), and mount it in cmd/perform", fields[0])
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list named %d packages under internal/; expected the whole tree:\n%s", seen, out)
	}
}

// maxSourceLines bounds a non-test Go file: one past it is split into files
// named for what they hold.
const maxSourceLines = 600

// TestNoSourceFileIsTooLong: no non-test Go file under internal/ or cmd/
// is longer than maxSourceLines.
func TestNoSourceFileIsTooLong(t *testing.T) {
	var seen int
	for _, root := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			seen++
			if n := bytes.Count(b, []byte("\n")); n > maxSourceLines {
				t.Errorf("%s has %d lines, over %d: split it into files named for what they hold", strings.TrimPrefix(path, "../../"), n, maxSourceLines)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen < 100 {
		t.Fatalf("found %d source files; expected the whole tree", seen)
	}
}
