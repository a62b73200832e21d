package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/text"
)

// Describe says what a value of schema s must be, as the tail of a
// sentence: "a whole number from 1 to 200", "one of "open", "done"",
// "a list of at most 50 strings of 1 to 200 characters".
func Describe(s *jsonschema.Schema) string {
	one, _ := describe(s)
	return one
}

// describe answers the phrase for one value and for several ("whole
// numbers from 1 to 200"), so a list can describe its items.
func describe(s *jsonschema.Schema) (one, many string) {
	typ := typeOf(s)
	if typ == "array" {
		if s.Items == nil {
			return "a list", "lists"
		}
		_, items := describe(s.Items)
		if s.MaxItems != nil {
			items = fmt.Sprintf("at most %d %s", *s.MaxItems, items)
		}
		return "a list of " + items, "lists of " + items
	}
	if len(s.Enum) > 0 {
		var words []string
		for _, e := range s.Enum {
			if e != nil {
				words = append(words, ShortJSON(e))
			}
		}
		if len(words) == 1 {
			return words[0], "values " + words[0]
		}
		list := strings.Join(words, ", ")
		return "one of " + list, "values, each one of " + list
	}
	switch typ {
	case "integer":
		b := bounds(s)
		return "a whole number" + b, "whole numbers" + b
	case "number":
		b := bounds(s)
		return "a number" + b, "numbers" + b
	case "boolean":
		return "true or false", "values true or false"
	case "object":
		return "an object", "objects"
	case "string":
		switch s.Format {
		case "date":
			return "a date like 2026-03-01", "dates like 2026-03-01"
		case "date-time":
			return "a date and time in RFC 3339 form, like 2026-03-01T09:00:00Z", "dates and times in RFC 3339 form, like 2026-03-01T09:00:00Z"
		case "email":
			return "an email address", "email addresses"
		}
		switch {
		case s.MinLength != nil && s.MaxLength != nil:
			l := fmt.Sprintf(" of %d to %d characters", *s.MinLength, *s.MaxLength)
			return "a string" + l, "strings" + l
		case s.MaxLength != nil:
			l := fmt.Sprintf(" of at most %d characters", *s.MaxLength)
			return "a string" + l, "strings" + l
		case s.MinLength != nil && *s.MinLength == 1:
			return "a string that is not empty", "strings that are not empty"
		case s.MinLength != nil:
			l := fmt.Sprintf(" of at least %d characters", *s.MinLength)
			return "a string" + l, "strings" + l
		}
		return "a string", "strings"
	}
	return "a JSON value", "JSON values"
}

// typeOf is the type a value of s has when it is not null.
func typeOf(s *jsonschema.Schema) string {
	typ := s.Type
	for _, t := range s.Types {
		if t != "null" {
			typ = t
		}
	}
	return typ
}

// bounds says the limits of a number: " from 1 to 200", " above 0 and at
// most 500", " of at least 0".
func bounds(s *jsonschema.Schema) string {
	var lower, upper string
	switch {
	case s.ExclusiveMinimum != nil:
		lower = "above " + num(*s.ExclusiveMinimum)
	case s.Minimum != nil:
		lower = "of at least " + num(*s.Minimum)
	}
	switch {
	case s.ExclusiveMaximum != nil:
		upper = "below " + num(*s.ExclusiveMaximum)
	case s.Maximum != nil:
		upper = "of at most " + num(*s.Maximum)
	}
	switch {
	case s.Minimum != nil && s.ExclusiveMinimum == nil && s.Maximum != nil && s.ExclusiveMaximum == nil:
		return fmt.Sprintf(" from %s to %s", num(*s.Minimum), num(*s.Maximum))
	case lower != "" && upper != "":
		return " " + strings.TrimPrefix(lower, "of ") + " and " + strings.TrimPrefix(upper, "of ")
	case lower != "":
		return " " + lower
	case upper != "":
		return " " + upper
	}
	return ""
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ShortJSON shows a value the caller sent as JSON, cut to a readable
// length.
func ShortJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	return text.Truncate(strings.TrimSuffix(b.String(), "\n"), 60)
}

// JSONProblem turns an encoding/json decoding error into words, without a
// final period: "invalid JSON at byte 12", "limit must be a whole number
// written without a decimal point; got 5.0".
func JSONProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		if te.Field == "" {
			return "expected a JSON object, got a JSON " + te.Value
		}
		literal, isNumber := strings.CutPrefix(te.Value, "number ")
		if isNumber && te.Type != nil {
			switch te.Type.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				if strings.ContainsAny(literal, ".eE") {
					return fmt.Sprintf("%s must be a whole number written without a decimal point or exponent; got %s", te.Field, text.Truncate(literal, 60))
				}
				return fmt.Sprintf("%s is out of range for a whole number; got %s", te.Field, text.Truncate(literal, 60))
			case reflect.Float32, reflect.Float64:
				return fmt.Sprintf("%s is out of range for a number; got %s", te.Field, text.Truncate(literal, 60))
			}
		}
		return fmt.Sprintf("%s cannot hold a JSON %s", te.Field, te.Value)
	default:
		return "it could not be read as JSON"
	}
}
