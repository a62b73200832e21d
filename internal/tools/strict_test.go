package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every tool's input schema, of every set, converts to strict mode as the
// OpenAI Agents SDK converts it, and the result is what strict mode
// demands: every object lists its properties, has additionalProperties
// false and requires them all, the optional ones nullable.
func TestEveryToolConvertsToStrictMode(t *testing.T) {
	sets := map[string][]Tool{"coach": All(), "trainee": Trainee(), "platform": Platform()}
	for set, tools := range sets {
		for _, tool := range tools {
			strict, err := Strict(tool.InputSchema)
			if err != nil {
				t.Errorf("%s tool %s: %v", set, tool.Name, err)
				continue
			}
			walkStrict(t, set+" "+tool.Name, strict)
		}
	}
}

func walkStrict(t *testing.T, at string, s *jsonschema.Schema) {
	t.Helper()
	if s == nil {
		return
	}
	if s.Type == "object" || slices.Contains(s.Types, "object") {
		if s.Properties == nil || !isFalseSchema(s.AdditionalProperties) {
			t.Errorf("%s: object without properties or additionalProperties false", at)
		}
		for name, p := range s.Properties {
			if !slices.Contains(s.Required, name) {
				t.Errorf("%s: %s is not required", at, name)
			}
			walkStrict(t, at+"."+name, p)
		}
	}
	walkStrict(t, at+"[]", s.Items)
}

// The converter refuses what strict mode cannot say.
func TestStrictRefusesOpenObjects(t *testing.T) {
	open := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"m": {Type: "object", AdditionalProperties: &jsonschema.Schema{}},
	}}
	if _, err := Strict(open); err == nil || !strings.Contains(err.Error(), "m: an open object") {
		t.Errorf("open map: %v", err)
	}
	if _, err := Strict(&jsonschema.Schema{Type: "object"}); err == nil {
		t.Error("an object without properties converted")
	}
}

// send_form's answers filled in ahead are pairs for the model and the
// lane's map on the wire; a strict client's nulls are left out.
func TestSendFormFieldValuesArePairs(t *testing.T) {
	var send Tool
	for _, tool := range All() {
		if tool.Name == "send_form" {
			send = tool
		}
	}
	if p := send.InputSchema.Properties["fieldValues"]; p == nil || p.Type != "array" {
		t.Fatalf("fieldValues: %+v", p)
	}
	r, err := send.Build(json.RawMessage(`{"traineeId":"Tamar","formTemplateId":"Weekly check-in","dueAt":null,"prompt":null,
		"fieldValues":[{"key":"sleep","value":"7"},{"key":"notes","value":"fine"},{"key":"ok","value":"true"},{"key":"day","value":"2026-01-02"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body := r.Body.(map[string]json.RawMessage)
	if got := string(body["fieldValues"]); got != `{"day":"2026-01-02","notes":"fine","ok":true,"sleep":7}` {
		t.Errorf("fieldValues sent as %s", got)
	}
	if _, has := body["dueAt"]; has {
		t.Error("a null dueAt was sent")
	}
	if _, err := send.Build(json.RawMessage(`{"traineeId":"Tamar","formTemplateId":"x","fieldValues":[{"key":"a","value":"1"},{"key":"a","value":"2"}]}`)); err == nil {
		t.Error("a key given twice was taken")
	}
}
