package roster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/schema"
)

// Scale fields are answered with a whole number in this range.
const scaleMin, scaleMax = 1, 10

// maxTextAnswer bounds a text answer, in characters.
const maxTextAnswer = 4000

// checkFieldValues answers one 422 naming every value of values (keyed by
// field key; field is the request field, fieldValues or answers) that is
// not a field of the form or does not fit its field's type. null is no
// answer and fits every type.
func checkFieldValues(field string, form domain.FormTemplate, values map[string]json.RawMessage) *lane.Error {
	keys := make([]string, 0, len(form.Fields))
	byKey := map[string]domain.FormField{}
	for _, f := range form.Fields {
		keys = append(keys, f.Key)
		byKey[f.Key] = f
	}
	var errs []lane.FieldError
	for _, k := range slices.Sorted(maps.Keys(values)) {
		name := field + "." + k
		f, known := byKey[k]
		if !known {
			errs = append(errs, lane.FieldError{Field: name, Message: fmt.Sprintf("%s is not a field of form %s; its fields are %s.", name, form.ID, strings.Join(keys, ", "))})
			continue
		}
		if msg := fitsField(f, values[k]); msg != "" {
			errs = append(errs, lane.FieldError{Field: name, Message: fmt.Sprintf("%s (%s) %s; got %s.", name, f.Label, msg, schema.ShortJSON(string(values[k])))})
		}
	}
	if len(errs) > 0 {
		return lane.ValidationError(errs)
	}
	return nil
}

// fitsField says what the value must be when it does not fit the field's
// type, or "".
func fitsField(f domain.FormField, raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "is not a JSON value"
	}
	switch f.Type {
	case "text":
		s, ok := v.(string)
		if !ok || len([]rune(s)) > maxTextAnswer {
			return fmt.Sprintf("is a text field: send a string of at most %d characters", maxTextAnswer)
		}
	case "number":
		n, ok := v.(float64)
		if !ok || math.IsInf(n, 0) || math.IsNaN(n) {
			return "is a number field: send a number such as 7.5"
		}
	case "date":
		s, ok := v.(string)
		if _, err := time.Parse(time.DateOnly, s); !ok || err != nil {
			return "is a date field: send a date as YYYY-MM-DD"
		}
	case "choice":
		s, ok := v.(string)
		if !ok || !slices.Contains(f.Options, s) {
			return "is a choice field: send one of " + strings.Join(f.Options, ", ")
		}
	case "scale":
		n, ok := v.(float64)
		if !ok || n != math.Trunc(n) || n < scaleMin || n > scaleMax {
			return fmt.Sprintf("is a scale field: send a whole number from %d to %d", scaleMin, scaleMax)
		}
	}
	return ""
}
