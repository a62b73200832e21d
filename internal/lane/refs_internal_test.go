package lane

import (
	"strings"
	"testing"
)

// Every id or tag filter of every route is checked: a request field that
// names a row (…Id, tag) carries a ref tag, so a new filter cannot forget it.
func TestEveryIDFilterIsChecked(t *testing.T) {
	l := newFull(Options{})
	for _, rt := range l.routes {
		if rt.method != "GET" {
			continue
		}
		for name := range rt.input.schema.Properties {
			if !strings.HasSuffix(name, "Id") && name != "tag" {
				continue
			}
			found := false
			for _, r := range rt.refs {
				found = found || r.name == name
			}
			if !found {
				t.Errorf("%s %s: filter %s has no ref tag, so an unknown value would answer an empty list", rt.method, rt.path, name)
			}
		}
	}
}

// Every date and instant a write takes has a plausible range (a when tag).
func TestEveryWrittenDateHasARange(t *testing.T) {
	l := newFull(Options{})
	for _, rt := range l.routes {
		if !isWrite(rt.method) {
			continue
		}
		for name, p := range rt.input.schema.Properties {
			if p.Format != "date" && p.Format != "date-time" {
				continue
			}
			found := false
			for _, d := range rt.dates {
				found = found || d.name == name
			}
			if !found {
				t.Errorf("%s %s: %s has no when tag, so any date is stored", rt.method, rt.path, name)
			}
		}
	}
}
