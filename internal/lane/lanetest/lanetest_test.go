package lanetest_test

import (
	"os/exec"
	"strings"
	"testing"
)

const (
	harness = "github.com/otherwise/perform/internal/lane/lanetest"
	kernel  = "github.com/otherwise/perform/internal/lane"
	areas   = "github.com/otherwise/perform/internal/areas"
)

// goList runs go list with args from the module's root.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
	cmd.Dir = "../../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// The harness is for tests: no package's own code imports it or its kit
// (the areas' tests do, from their test files).
func TestOnlyTestsImportTheHarness(t *testing.T) {
	t.Parallel()
	lines := goList(t, "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	if len(lines) < 20 {
		t.Fatalf("go list named %d packages; expected the whole module", len(lines))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], harness) {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, harness) {
				t.Errorf("%s imports %s in its own code; only tests may", fields[0], imp)
			}
		}
	}
}

// The kernel's tests run on a toy area of their own: the lane's test
// binary links none of the product's areas, so a change to an area
// neither rebuilds nor reruns the kernel's suite.
func TestTheKernelsTestsLinkNoArea(t *testing.T) {
	t.Parallel()
	deps := goList(t, "-deps", "-test", kernel)
	if len(deps) < 10 {
		t.Fatalf("go list named %d dependencies of the lane's tests", len(deps))
	}
	for _, dep := range deps {
		if dep == areas || strings.HasPrefix(dep, areas+"/") {
			t.Errorf("the lane's tests link %s", dep)
		}
	}
}
