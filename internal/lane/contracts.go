package lane

import (
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/ids"
)

// Contract is one route as a caller outside the lane may rely on it: its
// method and path, who may call it, the kind of its {id}, and the schema of
// its input (the query for GET and DELETE, the JSON body otherwise), the
// very schema the lane validates with. The coach tools derive their input
// schemas from the contracts of their routes (internal/tools).
type Contract struct {
	Tool string `json:"tool,omitempty"`
	// TraineeTools are the trainee tools that call the route, with the
	// scope a trainee's grant needs for it.
	TraineeTools []string `json:"traineeTools,omitempty"`
	TraineeScope string   `json:"traineeScope,omitempty"`
	Method       string   `json:"method"`
	Path         string   `json:"path"`
	Scope        string   `json:"scope,omitempty"` // what the credential must hold; "" for any key
	IDKind       ids.Kind `json:"idKind,omitempty"`
	// View is the ui:// address of the view that draws the answer (View).
	View string `json:"view,omitempty"`
	// Order is the input's property order (JSON objects keep none).
	Order []string           `json:"order"`
	Input *jsonschema.Schema `json:"input"`
}

// Contracts lists every route, sorted by path then method. The schemas are
// copies the caller may change.
func (l *Lane) Contracts() []Contract {
	out := make([]Contract, 0, len(l.routes))
	for _, rt := range l.routes {
		out = append(out, Contract{
			Tool: rt.tool, TraineeTools: rt.traineeTools, TraineeScope: rt.traineeScope, Method: rt.method, Path: rt.path, Scope: rt.scope, IDKind: rt.idKind, View: rt.view,
			Order: rt.input.object.Names(), Input: rt.input.schema.CloneSchemas(),
		})
	}
	slices.SortFunc(out, func(a, b Contract) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out
}
