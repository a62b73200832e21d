package lane

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkAllow panics at start when a path of a route's allow list (Allow)
// names no field of the route's answer: a field renamed in its Go type but
// not in the list would otherwise be dropped from every trainee's answer
// without a word, and whatever reads it would read nothing. Lists pass
// through to their items, as keepAllowed reads them; an object with no
// declared fields (a map) takes any name.
func checkAllow(method, path string, out *jsonschema.Schema, allow []string) {
	for _, p := range allow {
		s := out
		for _, part := range strings.Split(p, ".") {
			for s != nil && s.Items != nil && (s.Type == "array" || len(s.Types) > 0) {
				s = s.Items
			}
			if s == nil || len(s.Properties) == 0 {
				break // a map, or a value of any shape
			}
			next, ok := s.Properties[part]
			if !ok {
				panic(fmt.Sprintf("lane: %s %s allows %q, but its answer has no field %q there", method, path, p, part))
			}
			s = next
		}
	}
}
