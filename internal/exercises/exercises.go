// Package exercises is Perform's built-in exercise catalogue: plain facts
// the project writes (catalogue.json), embedded in the binary. A studio's
// own exercises live in the store and are searched beside these.
package exercises

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/domain"
)

//go:embed catalogue.json
var catalogueJSON []byte

// builtIn is the catalogue in file order, byID the same entries by id.
var builtIn, byID = load(catalogueJSON)

func load(raw []byte) ([]domain.Exercise, map[string]domain.Exercise) {
	var list []domain.Exercise
	if err := json.Unmarshal(raw, &list); err != nil {
		panic("exercises: catalogue.json: " + err.Error())
	}
	m := make(map[string]domain.Exercise, len(list))
	for _, e := range list {
		if _, dup := m[e.ID]; dup {
			panic(fmt.Sprintf("exercises: catalogue.json: %s twice", e.ID))
		}
		m[e.ID] = e
	}
	return list, m
}

// All is the built-in catalogue. The slice is shared: do not modify it.
func All() []domain.Exercise { return builtIn }

// Get is the built-in exercise with id.
func Get(id string) (domain.Exercise, bool) {
	e, ok := byID[id]
	return e, ok
}

// Alternatives are the exercises the catalogue names as swaps for id.
func Alternatives(id string) []domain.Exercise {
	e, ok := byID[id]
	if !ok {
		return nil
	}
	out := make([]domain.Exercise, 0, len(e.Alternatives))
	for _, a := range e.Alternatives {
		if alt, ok := byID[a]; ok {
			out = append(out, alt)
		}
	}
	return out
}

// Loads reports whether e loads the body area.
func Loads(e domain.Exercise, area string) bool { return slices.Contains(e.Loads, area) }

// Matches reports whether q is a substring of e's name, Hebrew name or an
// alias, ignoring case.
func Matches(e domain.Exercise, q string) bool {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return true
	}
	if strings.Contains(strings.ToLower(e.Name), q) || strings.Contains(e.NameHe, q) {
		return true
	}
	for _, a := range e.Aliases {
		if strings.Contains(strings.ToLower(a), q) {
			return true
		}
	}
	return false
}
