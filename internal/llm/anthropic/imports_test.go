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

// modelSDKs are the import paths of model SDKs: none is imported, for
// their size (the Anthropic SDK alone was a quarter of the first build's
// compile time and peaked at 2.8 GB of memory). This package speaks the
// Messages API itself.
var modelSDKs = []string{
	"github.com/anthropics/anthropic-sdk-go",
	"github.com/openai/openai-go",
	"github.com/sashabaranov/go-openai",
	"google.golang.org/genai",
}

// apiMarkers are strings only a client of the Messages API writes: its
// path and its version header.
var apiMarkers = []string{"/v1/messages", "anthropic-version"}

// No Go file of the module (tests and any build tag included) imports a
// model SDK, and outside this package only the test fake knows the
// Messages API's wire format: every other package talks to the model
// through internal/llm.
func TestNoModelSDKAndOneClientOfTheAPI(t *testing.T) {
	root := moduleRoot(t)
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(root, "internal", "agent", "fakes")
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, sdk := range modelSDKs {
				if strings.HasPrefix(p, sdk) {
					t.Errorf("%s imports %s; the model is spoken to by internal/llm/anthropic", rel, p)
				}
			}
		}
		dir := filepath.Dir(path)
		if dir == here || dir == fake || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range apiMarkers {
			if strings.Contains(string(src), m) {
				t.Errorf("%s writes %q: only internal/llm/anthropic calls the Messages API", rel, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The module requires no model SDK, so none is downloaded or compiled.
func TestGoModRequiresNoModelSDK(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sdk := range modelSDKs {
		if strings.Contains(string(mod), sdk) {
			t.Errorf("go.mod requires %s", sdk)
		}
	}
}

// The agent's model interface imports nothing but the standard library.
func TestTheModelInterfaceIsStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/otherwise/perform/internal/llm").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v: %s", err, out)
	}
	if deps := strings.Fields(string(out)); len(deps) != 1 || deps[0] != "github.com/otherwise/perform/internal/llm" {
		t.Fatalf("internal/llm depends on %v", deps)
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
