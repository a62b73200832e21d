package agent

import (
	"os"
	"testing"

	"github.com/otherwise/perform/internal/testkit"
)

// Most of this package's tests wait on PostgreSQL, River and the fake
// servers: more run at once.
func TestMain(m *testing.M) { os.Exit(testkit.RunWaiting(m)) }
