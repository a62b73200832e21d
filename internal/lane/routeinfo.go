package lane

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
