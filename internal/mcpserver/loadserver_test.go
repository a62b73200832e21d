package mcpserver_test

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/store/storetest"
)

// TestServeForLoad keeps the seeded test server up for an external load
// tool (mcpload) until SIGINT or SIGTERM. It runs only when
// PERFORM_MCP_LOAD_INFO names a file, to which it writes shell assignments:
// URL (the root; /mcp, /mcp-tcp and /v1/automation under it), KEY and
// TRAINEE. The GC target is the server's (PERFORM_GC_PERCENT, default 400);
// PERFORM_MCP_LOAD_ENGINE=postgres serves from a fresh schema of the
// database at PERFORM_TEST_POSTGRES_URL instead of SQLite.
//
//	PERFORM_MCP_LOAD_INFO=/tmp/load.env go test ./internal/mcpserver -run TestServeForLoad -timeout 0
func TestServeForLoad(t *testing.T) {
	t.Parallel()
	info := os.Getenv("PERFORM_MCP_LOAD_INFO")
	if info == "" {
		t.Skip("PERFORM_MCP_LOAD_INFO is not set; this is a server for load runs, not a test")
	}
	// The GC target of perform serve (its default unless PERFORM_GC_PERCENT
	// says otherwise), not the test binary's Go default.
	gc := config.Defaults().GCPercent
	if v := os.Getenv("PERFORM_GC_PERCENT"); v != "" {
		var err error
		if gc, err = strconv.Atoi(v); err != nil {
			t.Fatalf("PERFORM_GC_PERCENT %q is not a number", v)
		}
	}
	debug.SetGCPercent(gc)
	var f *mcptest.Fixture
	switch engine := os.Getenv("PERFORM_MCP_LOAD_ENGINE"); engine {
	case "", "sqlite":
		f = mcptest.New(t)
	case "postgres":
		base := os.Getenv(storetest.PostgresEnv)
		if base == "" {
			t.Fatal("PERFORM_MCP_LOAD_ENGINE=postgres needs " + storetest.PostgresEnv)
		}
		st, _ := storetest.OpenPostgresSchema(t, base)
		f = mcptest.NewOn(t, st)
		// Fresh tables have no statistics until autovacuum's first
		// analyze; a running database has them.
		if _, err := st.DB().Exec(`ANALYZE`); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("PERFORM_MCP_LOAD_ENGINE %q is neither sqlite nor postgres", engine)
	}
	env := fmt.Sprintf("URL=%s\nKEY=%s\nTRAINEE=%s\n", f.URL, f.A.Key, f.A.TraineeID)
	if err := os.WriteFile(info, []byte(env), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}
