//go:build crash

package crashtest

import (
	"os"
	"testing"

	"github.com/otherwise/perform/internal/testkit"
)

// The crash tests mostly wait (on River's rescue, on a stale claim's
// takeover, on restarted servers): they all run at once, -race or not.
func TestMain(m *testing.M) { os.Exit(testkit.RunChildren(m)) }
