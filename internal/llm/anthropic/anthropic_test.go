package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/tools"
)

// The strict tools of the agent's set fit the API's limits, the write is
// among them, and each strict schema is one the API compiles: every object
// closed, no keyword it cannot enforce (those are in the description).
func TestStrictToolsFitTheLimits(t *testing.T) {
	set := tools.AgentSubset()
	params, err := toolParams(set, true)
	if err != nil {
		t.Fatal(err)
	}
	var strict, optional, unions int
	var sawWrite bool
	for i, tp := range params {
		if !tp.Strict {
			continue
		}
		strict++
		sawWrite = sawWrite || !set[i].ReadOnly
		b, err := json.Marshal(tp.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema map[string]any
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		o, u := complexity(schema)
		optional, unions = optional+o, unions+u
		checkStrict(t, tp.Name, schema)
	}
	if strict == 0 || !sawWrite {
		t.Fatalf("%d strict tools, write among them %v", strict, sawWrite)
	}
	if strict > maxStrictTools || optional > maxStrictOptional || unions > maxStrictUnions {
		t.Fatalf("%d strict tools, %d optional and %d union parameters: over the limits", strict, optional, unions)
	}
	t.Logf("%d of %d tools strict (%d optional parameters)", strict, len(set), optional)
}

func checkStrict(t *testing.T, tool string, schema map[string]any) {
	t.Helper()
	for _, k := range []string{"minimum", "maximum", "minLength", "maxLength", "exclusiveMinimum", "maxItems"} {
		if _, ok := schema[k]; ok {
			t.Errorf("%s: strict schema keeps %s", tool, k)
		}
	}
	if schema["type"] == "object" && schema["additionalProperties"] != false {
		t.Errorf("%s: an object is not closed: %v", tool, schema)
	}
	props, _ := schema["properties"].(map[string]any)
	for _, p := range props {
		if ps, ok := p.(map[string]any); ok {
			checkStrict(t, tool, ps)
		}
	}
}

// Bounds strict mode cannot enforce stay readable to the model.
func TestStrictSchemaMovesBoundsIntoTheDescription(t *testing.T) {
	in := map[string]any{"type": "object", "properties": map[string]any{
		"limit": map[string]any{"type": "integer", "description": "Default 50.", "minimum": 1.0, "maximum": 200.0},
		"week":  map[string]any{"type": "string", "format": "iso-week"},
		"when":  map[string]any{"type": "string", "format": "date"},
	}}
	out := StrictSchema(in)
	props := out["properties"].(map[string]any)
	limit := props["limit"].(map[string]any)
	if limit["description"] != "Default 50.\n\n{maximum: 200, minimum: 1}" || limit["minimum"] != nil {
		t.Fatalf("limit %v", limit)
	}
	if w := props["week"].(map[string]any); w["format"] != nil || !strings.Contains(w["description"].(string), "format: iso-week") {
		t.Fatalf("week %v", w)
	}
	if props["when"].(map[string]any)["format"] != "date" || out["additionalProperties"] != false {
		t.Fatalf("out %v", out)
	}
	if in["properties"].(map[string]any)["limit"].(map[string]any)["minimum"] != 1.0 {
		t.Fatal("the input schema was changed")
	}
}

func TestStrictSupported(t *testing.T) {
	for model, want := range map[string]bool{
		"claude-sonnet-4-5": true, "claude-sonnet-4-5-20250929": true, "claude-haiku-4-5": true, "claude-opus-4-1": true,
		"claude-opus-4-6": true, "claude-sonnet-4-0": false, "claude-3-5-haiku-latest": false, "claude-test": false,
	} {
		if got := StrictSupported(model); got != want {
			t.Errorf("StrictSupported(%q) = %v; want %v", model, got, want)
		}
	}
}
