package schema

import (
	"reflect"
	"regexp"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// plainString is a property schema that is a string bounded by length and
// pattern only, with any annotations: most tool arguments (ids, names,
// queries). Its values are checked here, deciding as jsonschema-go does
// (type string; minLength and maxLength in Unicode code points; the
// pattern as a Go regexp, compiled once), without jsonschema-go's general
// walk, whose deep frames grow the stack of the goroutine the MCP SDK
// starts for each call, on every call.
type plainString struct {
	min, max *int
	pattern  *regexp.Regexp
}

// plainKeywords are the fields of jsonschema.Schema a plainString may set:
// its own three, its type, and annotations that constrain nothing.
// Format is checked by FormatOK either way (jsonschema-go leaves it).
var plainKeywords = map[string]bool{
	"Type": true, "MinLength": true, "MaxLength": true, "Pattern": true,
	"Title": true, "Description": true, "Comment": true, "Examples": true,
	"Deprecated": true, "ReadOnly": true, "WriteOnly": true, "Format": true,
}

// newPlainString answers the plainString of s, or nil when s sets anything
// else (a field added to jsonschema.Schema later included: it is not in
// plainKeywords), so the general validation keeps every other schema.
func newPlainString(s *jsonschema.Schema) *plainString {
	if s == nil || s.Type != "string" {
		return nil
	}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if !plainKeywords[v.Type().Field(i).Name] && !v.Field(i).IsZero() {
			return nil
		}
	}
	p := &plainString{min: s.MinLength, max: s.MaxLength}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil // the general validation reports it, as it did
		}
		p.pattern = re
	}
	return p
}

// ok reports whether the decoded JSON value v satisfies the schema.
func (p *plainString) ok(v any) bool {
	s, isString := v.(string)
	if !isString {
		return false
	}
	if p.min != nil || p.max != nil {
		n := utf8.RuneCountInString(s)
		if p.min != nil && n < *p.min || p.max != nil && n > *p.max {
			return false
		}
	}
	return p.pattern == nil || p.pattern.MatchString(s)
}
