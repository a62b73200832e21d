package payhook_test

import (
	"os"
	"testing"

	"github.com/otherwise/perform/internal/testkit"
)

// This package's lane tests wait on PostgreSQL: more run at once.
func TestMain(m *testing.M) { os.Exit(testkit.RunWaiting(m)) }
