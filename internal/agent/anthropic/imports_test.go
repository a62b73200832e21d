package anthropic

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const sdkPath = "github.com/anthropics/anthropic-sdk-go"

// Only this package imports the Anthropic SDK, the heaviest compile in the
// project: every other package (tests included) talks to the model through
// internal/agent/llm. Read from the source, so it holds for files of any
// build tag.
func TestOnlyThisPackageImportsTheSDK(t *testing.T) {
	root := moduleRoot(t)
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || filepath.Dir(path) == here {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, sdkPath) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s imports %s; only internal/agent/anthropic may", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The agent's model interface does not pull the SDK in, even indirectly.
func TestTheModelInterfaceDoesNotDependOnTheSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/otherwise/perform/internal/agent/llm").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v: %s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, sdkPath) {
			t.Fatalf("internal/agent/llm depends on %s", dep)
		}
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}
