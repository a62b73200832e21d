package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestStringNamesTheBinaryAndTheToolchain(t *testing.T) {
	s := String("perform")
	if !strings.HasPrefix(s, "perform ") || !strings.Contains(s, runtime.Version()) || strings.Contains(s, "\n") {
		t.Fatalf("String = %q", s)
	}
}
