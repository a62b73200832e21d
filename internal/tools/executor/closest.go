package executor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// UnknownToolSentence answers a call of a tool the set does not have: the
// closest names of the set and of the tools it holds back (locked: calling
// one says the step that opens it), or every name the set offers when none
// is close. It is the one wording of an unknown tool, for every set.
func UnknownToolSentence(name string, offered []string, locked ...string) string {
	if close := Closest(name, append(slices.Clone(offered), locked...), 3); len(close) > 0 {
		return fmt.Sprintf("There is no tool named %s; did you mean %s? tools/list gives every tool.", name, orList(close))
	}
	return fmt.Sprintf("There is no tool named %s; the tools are %s.", name, strings.Join(offered, ", "))
}

// Closest are at most n of names close to name, closest first: those a few
// edits away (a typo, a plural) and those sharing a word of its
// (get_plan and get_my_plan, list_plan and list_plans). Words are split at
// underscores, hyphens and spaces, compared without case or a final s.
func Closest(name string, names []string, n int) []string {
	type scored struct {
		name   string
		shared int
		dist   int
	}
	want := words(name)
	var found []scored
	for _, c := range names {
		s := scored{name: c, dist: distance(strings.ToLower(name), strings.ToLower(c))}
		for _, w := range words(c) {
			if slices.Contains(want, w) && !common[w] {
				s.shared++
			}
		}
		if s.shared > 0 || s.dist <= max(2, len(name)/4) {
			found = append(found, s)
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		if c := cmp.Compare(b.shared, a.shared); c != 0 {
			return c
		}
		return cmp.Compare(a.dist, b.dist)
	})
	var out []string
	for _, s := range found[:min(n, len(found))] {
		out = append(out, s.name)
	}
	return out
}

// common words say what a tool does, not what it is about: sharing one
// makes no tool close.
var common = map[string]bool{"get": true, "list": true, "my": true, "create": true, "update": true, "log": true, "search": true, "find": true, "by": true, "the": true, "a": true, "to": true}

func words(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' || r == ' ' || r == '.' || r == '/' }) {
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		out = append(out, w)
	}
	return out
}

// distance is the Levenshtein distance of a and b, by bytes (tool names
// are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func orList(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " or " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
