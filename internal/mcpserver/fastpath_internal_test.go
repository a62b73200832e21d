package mcpserver

import (
	"bytes"
	stdjson "encoding/json"
	"io"
	"math"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path decodes a call's params into callParams, which must have
// the fields mcp.CallToolParams has: a field the SDK adds (a go-sdk
// upgrade) could refuse a body the fast path takes.
func TestCallParamsHaveTheSDKsFields(t *testing.T) {
	if got, want := jsonFields(reflect.TypeFor[callParams]()), jsonFields(reflect.TypeFor[mcp.CallToolParams]()); !slices.Equal(got, want) {
		t.Errorf("callParams decodes %v; mcp.CallToolParams has %v: mirror the new fields, and leave calls that carry one to the SDK's handler", got, want)
	}
}

func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// A call to a tool that sends notifications, or binds an argument to a
// header, is left to the SDK's handler; today no tool does either.
func TestSDKOnlyToolsSkipTheFastPath(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_trainee","arguments":{}}}`)
	r := httptest.NewRequest("POST", "/mcp", nil)
	if _, ok := parseCall(r, body, &served{sdkOnly: map[string]bool{}}); !ok {
		t.Fatal("the fast path refused a plain call")
	}
	if _, ok := parseCall(r, body, &served{sdkOnly: map[string]bool{"get_trainee": true}}); ok {
		t.Error("the fast path took a call to a tool that sends notifications")
	}
	for _, opts := range []Options{{}, {Platform: true}, {Trainee: true}, {Trainee: true, Platform: true}} {
		if m := sdkOnlyTools(opts); len(m) != 0 {
			t.Errorf("%+v: tools left to the SDK's handler: %v; say so in docs/mcp.md", opts, m)
		}
	}
}

// compactResult is a result as the SDK hands it over: its encoder's
// output, HTML left unescaped.
func compactResult(t testing.TB, v any) stdjson.RawMessage {
	var buf bytes.Buffer
	enc := stdjson.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// checkWrittenAsEncoded holds writeResult to jsonrpc.EncodeMessage: the
// same bytes when it writes, nothing when it declines.
func checkWrittenAsEncoded(t testing.TB, resp *jsonrpc.Response) {
	want, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if !writeResult(&got, resp) {
		if got.Len() != 0 {
			t.Fatalf("declined but wrote %q", got.Bytes())
		}
		return
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("written\n%s\nencoded\n%s", got.Bytes(), want)
	}
}

func TestResultWrittenAsTheSDKEncodesIt(t *testing.T) {
	results := []any{
		map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"a":"<b>&\u2028\u2029 שלום 🏋️"}`}}},
		map[string]any{"structuredContent": map[string]any{"x": 1.5e300, "y": nil, "z": []any{}}},
		"",
		[]any{},
	}
	for _, id := range []any{0.0, 7.0, -1.0, float64(math.MaxInt64), float64(1 << 53), "abc", "<&>"} {
		jid, err := jsonrpc.MakeID(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			checkWrittenAsEncoded(t, &jsonrpc.Response{ID: jid, Result: compactResult(t, r)})
		}
		checkWrittenAsEncoded(t, &jsonrpc.Response{ID: jid, Error: &jsonrpc.Error{Code: -32602, Message: "bad"}})
	}
	if jid, _ := jsonrpc.MakeID("s"); writeResult(io.Discard, &jsonrpc.Response{ID: jid, Result: compactResult(t, 1)}) {
		t.Fatal("a string id is left to EncodeMessage")
	}
}

func FuzzResultWrittenAsTheSDKEncodesIt(f *testing.F) {
	f.Add(int64(1), "text <b> & \u2028")
	f.Add(int64(-9), "\xff\xfe invalid")
	f.Fuzz(func(t *testing.T, id int64, text string) {
		jid, err := jsonrpc.MakeID(float64(id))
		if err != nil {
			t.Fatal(err)
		}
		checkWrittenAsEncoded(t, &jsonrpc.Response{ID: jid, Result: compactResult(t, map[string]any{"text": text, "n": id})})
	})
}
