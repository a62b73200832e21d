package lane

import (
	"strings"
	"testing"
)

// Every id or tag filter of every route is checked: a request field that
// names a row (…Id, tag) carries a ref tag, so a new filter cannot forget it.
func TestEveryIDFilterIsChecked(t *testing.T) {
	l := New(Options{})
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
