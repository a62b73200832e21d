package lane

import (
	"context"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// Checks are the input fields one route checks before its handler runs: the
// fields that name rows (ref tags) and the dates held to a plausible range
// (when tags). The route-wide tests read them beside the Contracts.
type Checks struct {
	Method, Path string
	Refs, Dates  []string
}

// Checks lists the checks of every route, in the order the areas added them.
func (l *Lane) Checks() []Checks {
	out := make([]Checks, 0, len(l.routes))
	for _, rt := range l.routes {
		c := Checks{Method: rt.method, Path: rt.path}
		for _, r := range rt.refs {
			c.Refs = append(c.Refs, r.name)
		}
		for _, d := range rt.dates {
			c.Dates = append(c.Dates, d.name)
		}
		out = append(out, c)
	}
	return out
}

// OwnerOf is the trainee a record of kind belongs to, as the lane reads it
// before a trainee's route names the record by its {id}: for the
// route-wide tests of every declared noun.
func (l *Lane) OwnerOf(ctx context.Context, ss store.StudioStore, kind ids.Kind, id string) (string, error) {
	return l.ownerOf(ctx, ss, kind, id)
}
