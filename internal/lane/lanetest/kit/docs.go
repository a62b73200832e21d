package kit

import (
	"encoding/json"
	"strings"

	"github.com/otherwise/perform/internal/auth"
)

// DocOp is one operation of the lane's OpenAPI document.
type DocOp struct {
	Method, Path, Scope string
	Security            []map[string][]string
}

// Operations lists the operations of the lane's OpenAPI document, checking
// that the app-only ones are the studio:admin ones.
func (e *Env) Operations() []DocOp {
	e.T.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Scope    string                `json:"x-perform-scope"`
			AppOnly  bool                  `json:"x-perform-app-only"`
			Security []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(e.Lane.OpenAPI(), &doc); err != nil {
		e.T.Fatal(err)
	}
	var out []DocOp
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.AppOnly != (op.Scope == auth.ScopeStudioAdmin) {
				e.T.Errorf("%s %s: app-only %v but scope %q", method, path, op.AppOnly, op.Scope)
			}
			out = append(out, DocOp{Method: strings.ToUpper(method), Path: path, Scope: op.Scope, Security: op.Security})
		}
	}
	return out
}
