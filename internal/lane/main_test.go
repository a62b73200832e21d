package lane_test

import (
	"os"
	"testing"

	"github.com/otherwise/perform/internal/testkit"
)

// Most of this package's tests wait on PostgreSQL: more run at once.
func TestMain(m *testing.M) { os.Exit(testkit.RunWaiting(m)) }
