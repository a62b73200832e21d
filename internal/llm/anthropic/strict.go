package anthropic

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/otherwise/perform/internal/tools"
)

// The API bounds how much strict schema one request may carry (its
// "schema complexity limits"): strict tools, optional parameters and
// parameters with a union type, summed over every strict tool.
const (
	maxStrictTools    = 20
	maxStrictOptional = 24
	maxStrictUnions   = 16
)

// chooseStrict picks the tools that get strict: true, within the limits:
// first the writes that run at once (a malformed one is the mistake that
// costs), then the writes the coach confirms (a dry run checks each before
// anything happens), then the reads, each in the set's order and taken
// while it still fits.
func chooseStrict(set []tools.Tool, schemas []map[string]any) map[int]bool {
	chosen := map[int]bool{}
	var n, optional, unions int
	take := func(i int) {
		o, u := complexity(schemas[i])
		if n+1 > maxStrictTools || optional+o > maxStrictOptional || unions+u > maxStrictUnions {
			return
		}
		n, optional, unions = n+1, optional+o, unions+u
		chosen[i] = true
	}
	passes := []func(tools.Tool) bool{
		func(t tools.Tool) bool { return !t.ReadOnly && !tools.NeedsConfirmation(t.Name) },
		func(t tools.Tool) bool { return !t.ReadOnly && tools.NeedsConfirmation(t.Name) },
		func(t tools.Tool) bool { return t.ReadOnly },
	}
	for _, in := range passes {
		for i, t := range set {
			if in(t) {
				take(i)
			}
		}
	}
	return chosen
}

// complexity counts a schema's optional parameters and union-typed ones,
// nested objects included.
func complexity(schema map[string]any) (optional, unions int) {
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if !required[name] {
			optional++
		}
		if _, ok := ps["anyOf"]; ok {
			unions++
		} else if _, ok := ps["type"].([]any); ok {
			unions++
		}
		o, u := complexity(ps)
		optional, unions = optional+o, unions+u
		if items, ok := ps["items"].(map[string]any); ok {
			o, u := complexity(items)
			optional, unions = optional+o, unions+u
		}
	}
	return optional, unions
}

// strictKeys are the JSON Schema keywords strict tool use compiles (as the
// API documents them for structured outputs); strictFormats the string formats.
var (
	strictKeys = []string{"$ref", "$defs", "type", "anyOf", "oneOf", "allOf", "description", "title",
		"enum", "const", "properties", "additionalProperties", "required", "items", "minItems", "format", "pattern"}
	strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)

// StrictSchema is schema as strict tool use takes it: every object closed
// (additionalProperties false), and the keywords it cannot enforce (numeric
// and length bounds, minItems above 1, unknown formats) moved into the
// description, where the model still reads them. The lane checks them all
// again, as it does for every caller.
func StrictSchema(schema map[string]any) map[string]any {
	out := map[string]any{}
	extras := map[string]any{}
	for k, v := range schema {
		switch {
		case k == "minItems":
			if n, ok := v.(float64); ok && n > 1 {
				extras[k] = v
				continue
			}
			out[k] = v
		case k == "format":
			if s, _ := v.(string); !slices.Contains(strictFormats, s) {
				extras[k] = v
				continue
			}
			out[k] = v
		case slices.Contains(strictKeys, k):
			out[k] = v
		default:
			extras[k] = v
		}
	}
	if props, ok := out["properties"].(map[string]any); ok {
		strictProps := make(map[string]any, len(props))
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok {
				strictProps[name] = StrictSchema(ps)
			} else {
				strictProps[name] = p
			}
		}
		out["properties"] = strictProps
	}
	if items, ok := out["items"].(map[string]any); ok {
		out["items"] = StrictSchema(items)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := out[k].([]any); ok {
			next := make([]any, len(list))
			for i, v := range list {
				if vs, ok := v.(map[string]any); ok {
					next[i] = StrictSchema(vs)
				} else {
					next[i] = v
				}
			}
			out[k] = next
		}
	}
	if out["type"] == "object" {
		if _, ok := out["properties"]; !ok {
			out["properties"] = map[string]any{}
		}
		out["additionalProperties"] = false
	}
	if len(extras) > 0 {
		keys := make([]string, 0, len(extras))
		for k := range extras {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s: %v", k, extras[k])
		}
		note := "{" + strings.Join(parts, ", ") + "}"
		if d, _ := out["description"].(string); d != "" {
			note = d + "\n\n" + note
		}
		out["description"] = note
	}
	return out
}
