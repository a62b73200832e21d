package roster

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/otherwise/perform/internal/domain"
)

// FuzzFitsField: any JSON value is judged without panicking, and a scale
// value is admitted only when it is null or a whole number from 1 to 10.
func FuzzFitsField(f *testing.F) {
	for _, s := range []string{`7`, `"high"`, `99`, `4.5`, `null`, `1e400`, `"2026-03-01"`, `[1]`, `{"a":1}`, `-0`, `10.0`} {
		f.Add(s)
	}
	scale := domain.FormField{Key: "e", Label: "Energy", Type: "scale"}
	others := []domain.FormField{{Type: "text"}, {Type: "number"}, {Type: "date"}, {Type: "choice", Options: []string{"a"}}}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, o := range others {
			_ = fitsField(o, json.RawMessage(raw))
		}
		if fitsField(scale, json.RawMessage(raw)) != "" {
			return
		}
		var v any
		if json.Unmarshal(bytes.TrimSpace([]byte(raw)), &v) != nil {
			t.Fatalf("scale admitted %q, which is not JSON", raw)
		}
		if v == nil {
			return
		}
		n, ok := v.(float64)
		if !ok || n != math.Trunc(n) || n < 1 || n > 10 {
			t.Fatalf("scale admitted %q", raw)
		}
	})
}
