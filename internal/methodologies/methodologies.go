// Package methodologies is Perform's library of training methodologies:
// concise facts (principles, phase structure, typical sessions) a coaching
// model reads as context, across seven sports. The data is embedded JSON,
// checked at start and by the package's test.
package methodologies

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Sports are the sports the library covers, in the order it lists them.
var Sports = []string{"strength", "running", "cycling", "swimming", "triathlon", "conditioning", "mobility"}

// Phase is one block of a methodology's cycle.
type Phase struct {
	Name  string `json:"name"`
	Weeks string `json:"weeks" jsonschema:"Its usual length, such as 4-6."`
	Focus string `json:"focus"`
}

// Methodology is one way of training, stated as plain facts.
type Methodology struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	Sport           string   `json:"sport" jsonschema:"strength, running, cycling, swimming, triathlon, conditioning or mobility."`
	Summary         string   `json:"summary"`
	SuitedFor       string   `json:"suitedFor" jsonschema:"Who it suits."`
	Principles      []string `json:"principles"`
	Phases          []Phase  `json:"phases"`
	TypicalSessions []string `json:"typicalSessions"`
}

//go:embed methodologies.json
var raw []byte

var all = mustLoad(raw)

func mustLoad(b []byte) []Methodology {
	list, err := load(b)
	if err != nil {
		panic("methodologies: " + err.Error())
	}
	return list
}

// load decodes and checks the library: ids unique, every field present,
// every sport one of Sports.
func load(b []byte) ([]Methodology, error) {
	var list []Methodology
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, m := range list {
		switch {
		case m.ID == "" || m.Name == "" || m.Summary == "" || m.SuitedFor == "":
			return nil, fmt.Errorf("entry %d (%q) lacks an id, name, summary or suitedFor", i, m.ID)
		case seen[m.ID]:
			return nil, fmt.Errorf("id %q appears twice", m.ID)
		case !slices.Contains(Sports, m.Sport):
			return nil, fmt.Errorf("%s: sport %q is not one of %v", m.ID, m.Sport, Sports)
		case len(m.Principles) == 0 || len(m.Phases) == 0 || len(m.TypicalSessions) == 0:
			return nil, fmt.Errorf("%s: principles, phases and typicalSessions must each have an entry", m.ID)
		}
		for _, s := range append(slices.Clone(m.Principles), m.TypicalSessions...) {
			if strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("%s: an empty principle or session", m.ID)
			}
		}
		for _, p := range m.Phases {
			if p.Name == "" || p.Weeks == "" || p.Focus == "" {
				return nil, fmt.Errorf("%s: a phase lacks its name, weeks or focus", m.ID)
			}
		}
		seen[m.ID] = true
	}
	return list, nil
}

// All is the whole library, grouped by sport in the order of Sports. The
// slice is a copy; its entries share their lists, which callers must not change.
func All() []Methodology { return slices.Clone(all) }

// Get is one methodology by id.
func Get(id string) (Methodology, bool) {
	i := slices.IndexFunc(all, func(m Methodology) bool { return m.ID == id })
	if i < 0 {
		return Methodology{}, false
	}
	return all[i], true
}

// OfSport is the methodologies of one sport ("" for all).
func OfSport(sport string) []Methodology {
	if sport == "" {
		return All()
	}
	var out []Methodology
	for _, m := range all {
		if m.Sport == sport {
			out = append(out, m)
		}
	}
	return out
}

// Search is the methodologies whose text holds every word of q (case does
// not matter), those whose name or sport holds them first; "" matches all.
func Search(q, sport string) []Methodology {
	words := strings.Fields(strings.ToLower(q))
	var named, rest []Methodology
	for _, m := range OfSport(sport) {
		title := strings.ToLower(m.Name + " " + m.Sport + " " + m.ID)
		text := strings.ToLower(title + " " + m.Summary + " " + m.SuitedFor + " " + strings.Join(m.Principles, " ") + " " + strings.Join(m.TypicalSessions, " "))
		for _, p := range m.Phases {
			text += " " + strings.ToLower(p.Name+" "+p.Focus)
		}
		if !containsAll(text, words) {
			continue
		}
		if containsAll(title, words) {
			named = append(named, m)
		} else {
			rest = append(rest, m)
		}
	}
	return append(named, rest...)
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
