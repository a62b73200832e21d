package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/testkit"
)

// These benchmarks compare one get_trainee five ways on the same seeded
// server: the hosted /mcp behind its gate as perform serve mounts it, the
// same without the gate, the endpoint calling the lane over TCP loopback,
// the lane's GET itself, and the MCP SDK alone answering the same JSON.
//
//	go test ./internal/mcpserver -run '^$' -bench . -benchmem
//
// The Handler benchmarks call ServeHTTP directly, so -benchmem counts the
// server's allocations only; the Loopback ones go through a real client and
// socket, as mcpload does.

func getTraineeCall(id string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_trainee","arguments":{"traineeId":"` + id + `"}}}`
}

// getTraineeCall2026 is get_trainee as a 2026-07-28 client sends it: the
// version, capabilities and client in _meta, the method and tool in headers.
func getTraineeCall2026(id string) (string, []string) {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + newMeta("2026-07-28") + `,"name":"get_trainee","arguments":{"traineeId":"` + id + `"}}}`,
		[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "get_trainee"}
}

// memoryResponse is a minimal ResponseWriter for calling handlers directly.
type memoryResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (m *memoryResponse) Header() http.Header { return m.header }
func (m *memoryResponse) WriteHeader(s int)   { m.status = s }
func (m *memoryResponse) Write(p []byte) (int, error) {
	if m.status == 0 {
		m.status = 200
	}
	return m.body.Write(p)
}
func (m *memoryResponse) Flush() {}

func serveOnce(b testing.TB, h http.Handler, method, target, key, body string, want string, header ...string) {
	req, _ := http.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := &memoryResponse{header: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != 200 || !bytes.Contains(w.body.Bytes(), []byte(want)) || bytes.Contains(w.body.Bytes(), []byte(`"isError":true`)) {
		b.Fatalf("%s %s: %d %s", method, target, w.status, w.body.Bytes())
	}
}

func BenchmarkGetTraineeHandler(b *testing.B) {
	f := mcptest.New(b)
	inProcess := mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(f.Lane), "mcp"), Logger: mcptest.Quiet(),
	})
	overTCP := mcpserver.New(mcpserver.Options{
		Client: laneclient.New(f.URL, &http.Transport{MaxIdleConnsPerHost: 64}, "mcp"), Logger: mcptest.Quiet(),
	})
	// As perform serve mounts it: behind the gate (authentication, rate
	// limit), on one Authenticator shared with the lane.
	authn := credentials.New(credentials.Options{Keys: f.Store})
	gatedLane := areas.Lane(lane.Options{Store: f.Store, Audit: f.Audit, Logger: mcptest.Quiet(), Authenticator: authn})
	gated := mcpserver.Gate{Authenticator: authn, Logger: mcptest.Quiet()}.Wrap(mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(gatedLane), "mcp"), Logger: mcptest.Quiet(),
	}))
	gatedSDK := mcpserver.Gate{Authenticator: authn, Logger: mcptest.Quiet()}.Wrap(mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(gatedLane), "mcp"), Logger: mcptest.Quiet(), SDKPathOnly: true,
	}))
	call := getTraineeCall(f.A.TraineeID)
	call2026, header2026 := getTraineeCall2026(f.A.TraineeID)
	b.Run("mcp-gated-lane-in-process", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, gated, "POST", "http://127.0.0.1/mcp", f.A.Key, call, f.A.TraineeLastName)
		}
	})
	// The same on the SDK's handler (PERFORM_MCP_FAST_PATH=off).
	b.Run("mcp-gated-sdk-path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, gatedSDK, "POST", "http://127.0.0.1/mcp", f.A.Key, call, f.A.TraineeLastName)
		}
	})
	// A 2026-07-28 client's call, both ways.
	b.Run("mcp-gated-2026", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, gated, "POST", "http://127.0.0.1/mcp", f.A.Key, call2026, f.A.TraineeLastName, header2026...)
		}
	})
	b.Run("mcp-gated-2026-sdk-path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, gatedSDK, "POST", "http://127.0.0.1/mcp", f.A.Key, call2026, f.A.TraineeLastName, header2026...)
		}
	})
	b.Run("mcp-lane-in-process", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, inProcess, "POST", "http://127.0.0.1/mcp", f.A.Key, call, f.A.TraineeLastName)
		}
	})
	b.Run("mcp-lane-tcp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, overTCP, "POST", "http://127.0.0.1/mcp", f.A.Key, call, f.A.TraineeLastName)
		}
	})
	b.Run("lane-get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, f.Lane, "GET", "http://127.0.0.1/v1/automation/trainees/"+f.A.TraineeID, f.A.Key, "", f.A.TraineeLastName)
		}
	})
	// The SDK's floor: the same stateless, JSON-answering handler with one
	// tool that answers the trainee's JSON it already holds (no gate, no
	// lane, no store): what any tool call costs before Perform does
	// anything.
	floor := bareServer(b, laneAnswer(f))
	sdkOnly := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return floor },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	b.Run("sdk-floor-fixed-answer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, sdkOnly, "POST", "http://127.0.0.1/mcp", f.A.Key, call, f.A.TraineeLastName)
		}
	})
}

// laneAnswer is the lane's answer to the fixture's get_trainee, envelope
// and all.
func laneAnswer(f *mcptest.Fixture) []byte {
	w := &memoryResponse{header: http.Header{}}
	req, _ := http.NewRequest("GET", "http://127.0.0.1/v1/automation/trainees/"+f.A.TraineeID, nil)
	req.Header.Set("Authorization", "Bearer "+f.A.Key)
	f.Lane.ServeHTTP(w, req)
	return w.body.Bytes()
}

// bareServer is an mcp.Server whose one tool, get_trainee, answers the
// data of the lane answer it holds: no executor, no lane call.
func bareServer(b *testing.B, answer []byte) *mcp.Server {
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(answer, &env); err != nil {
		b.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "get_trainee", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(env.Data)}}, StructuredContent: env.Data}, nil
		})
	return srv
}

// BenchmarkGetTraineeLoopback is end to end over 127.0.0.1 with parallel
// keep-alive clients, under several GC targets (the server's
// PERFORM_GC_PERCENT); req/s is reported. Run one GC target with
// -bench 'Loopback/.*/gc=100$'.
func BenchmarkGetTraineeLoopback(b *testing.B) {
	f := mcptest.New(b)
	call := getTraineeCall(f.A.TraineeID)
	// The endpoint's floor: the same endpoint, fast path and tool, over a
	// lane that answers the trainee's envelope it already holds (no store,
	// no auth, no audit). Beside lane-get it bounds what /mcp can reach:
	// a call costs the lane's work plus at least the floor's.
	answer := laneAnswer(f)
	held := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
	floor := httptest.NewServer(mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(held), "mcp"), Logger: mcptest.Quiet(),
	}))
	b.Cleanup(floor.Close)
	// The SDK's floor: the endpoint's fast path over an mcp.Server whose
	// one tool answers the trainee's JSON it holds (no executor, no lane
	// call): what a call costs on the SDK's public interfaces alone.
	bare := bareServer(b, answer)
	sdkFloor := httptest.NewServer(mcpserver.EndpointFor(bare))
	b.Cleanup(sdkFloor.Close)
	// HTTP's floor: the same answer's bytes written by a bare handler, so
	// the SDK's part is the sdk floor less this one.
	rec := &memoryResponse{header: http.Header{}}
	sdkReq, _ := http.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(call))
	sdkReq.Header.Set("Authorization", "Bearer "+f.A.Key)
	sdkReq.Header.Set("Content-Type", "application/json")
	sdkReq.Header.Set("Accept", "application/json, text/event-stream")
	mcpserver.EndpointFor(bare).ServeHTTP(rec, sdkReq)
	mcpAnswer := rec.body.Bytes()
	httpFloor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(mcpAnswer)
	}))
	b.Cleanup(httpFloor.Close)
	targets := []struct{ name, method, url, body string }{
		{"mcp-lane-in-process", "POST", f.URL + "/mcp", call},
		{"mcp-lane-tcp", "POST", f.URL + "/mcp-tcp", call},
		{"lane-get", "GET", f.URL + "/v1/automation/trainees/" + f.A.TraineeID, ""},
		{"mcp-floor-held-answer", "POST", floor.URL + "/mcp", call},
		{"sdk-floor-fast-path", "POST", sdkFloor.URL + "/mcp", call},
		{"http-floor-held-mcp-answer", "POST", httpFloor.URL + "/mcp", call},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	for _, gc := range []int{100, 400, 800} {
		for _, tg := range targets {
			b.Run(tg.name+"/gc="+strconv.Itoa(gc), func(b *testing.B) {
				previous := debug.SetGCPercent(gc)
				defer debug.SetGCPercent(previous)
				b.ReportAllocs()
				b.SetParallelism(4)
				cpu0 := testkit.ProcessCPU()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						req, _ := http.NewRequest(tg.method, tg.url, strings.NewReader(tg.body))
						req.Header.Set("Authorization", "Bearer "+f.A.Key)
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Accept", "application/json, text/event-stream")
						req.Header.Set("MCP-Protocol-Version", "2025-11-25")
						resp, err := client.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						body, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 || !bytes.Contains(body, []byte(f.A.TraineeLastName)) {
							b.Errorf("%d %s", resp.StatusCode, body)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
				// The process's CPU time a request, server and client
				// together: steadier than req/s on a shared machine.
				b.ReportMetric(float64((testkit.ProcessCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/req")
			})
		}
	}
}
