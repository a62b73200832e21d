package mcpserver_test

import (
	"runtime"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/testkit"
)

// The allocation budget of one get_trainee on the hosted endpoint as perform
// serve mounts it (the gate, the fast path, the lane in process, the store,
// the audit): what a call allocates, in objects and bytes, averaged over
// many calls. BenchmarkGetTraineeHandler measures the same calls
// (mcp-gated-lane-in-process, mcp-gated-2026). On go-sdk v1.8.0 the SDK's
// handler costs about 326 KB and 436 objects a call (489 KB and 612 for a
// 2026-07-28 client); the fast path about 92 KB and 372 (177 KB and 459),
// of which two decodes inside mcp.Server take 64 KB.
var fastPathBudget = []struct {
	name           string
	allocs, kbytes float64
	version2026    bool
}{
	{"2025-11-25", 420, 128, false},
	{"2026-07-28", 520, 224, true},
}

func TestFastPathAllocationBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("measures many calls")
	}
	f := mcptest.New(t)
	authn := credentials.New(credentials.Options{Keys: f.Store})
	gatedLane := areas.Lane(lane.Options{Store: f.Store, Audit: f.Audit, Logger: mcptest.Quiet(), Authenticator: authn})
	gated := mcpserver.Gate{Authenticator: authn, Logger: mcptest.Quiet()}.Wrap(mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(gatedLane), "mcp"), Logger: mcptest.Quiet(),
	}))
	for _, b := range fastPathBudget {
		t.Run(b.name, func(t *testing.T) {
			body, header := getTraineeCall(f.A.TraineeID), []string(nil)
			if b.version2026 {
				body, header = getTraineeCall2026(f.A.TraineeID)
			}
			call := func() {
				serveOnce(t, gated, "POST", "http://127.0.0.1/mcp", f.A.Key, body, f.A.TraineeLastName, header...)
			}
			for range 20 {
				call() // warm: pools, the key's principal, the lane's first-use work
			}
			before := mcpserver.FastCalls()
			const runs = 300
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			allocs := testing.AllocsPerRun(runs, call)
			runtime.ReadMemStats(&m1)
			kb := float64(m1.TotalAlloc-m0.TotalAlloc) / float64(runs+1) / 1024
			if got := mcpserver.FastCalls() - before; got < runs {
				t.Fatalf("the fast path answered %d of %d calls", got, runs)
			}
			t.Logf("%s: %.0f allocations, %.1f KB a call", b.name, allocs, kb)
			if testkit.RaceEnabled {
				// The race detector's build allocates about a tenth more.
				b.allocs, b.kbytes = b.allocs*1.1, b.kbytes*1.15
			}
			if allocs > b.allocs || kb > b.kbytes {
				t.Errorf("one get_trainee allocates %.0f objects and %.1f KB; the budget is %.0f and %.0f KB. Profile it: go test ./internal/mcpserver -run '^$' -bench 'BenchmarkGetTraineeHandler/mcp-gated' -benchmem -memprofile mem.out",
					allocs, kb, b.allocs, b.kbytes)
			}
		})
	}
}
