package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/schema"
)

// IDArguments are the arguments that carry an id, by name, and the kind of
// id each must be. Every tool's argument of such a name (a string, or a
// list of strings) is refused before any request when its value is not an
// id of that kind, naming the argument and then the lane's own not-found
// sentence: an id like ".." never reaches a lane path.
var IDArguments = map[string]ids.Kind{
	"traineeId":      ids.Trainee,
	"traineeIds":     ids.Trainee,
	"clientId":       ids.Trainee,
	"coachId":        ids.Coach,
	"coachIds":       ids.Coach,
	"productId":      ids.Product,
	"templateId":     ids.ProgramTemplate,
	"formTemplateId": ids.FormTemplate,
	"taskId":         ids.Task,
	"sessionId":      ids.Session,
	"goalId":         ids.Goal,
	"benchmarkId":    ids.Benchmark,
	"programId":      ids.Program,
	"draftId":        ids.PlanDraft,
	"chargeId":       ids.Charge,
}

// Named are the kinds whose id arguments take a name too: the lane
// resolves a trainee, coach, plan, template or form by name (and says what
// it matched). An id of another kind is refused here all the same.
var Named = map[ids.Kind]bool{ids.Trainee: true, ids.Coach: true, ids.Product: true, ids.ProgramTemplate: true, ids.FormTemplate: true}

// PlausibleName reports whether s may be a name the lane resolves: it has
// a letter, and nothing that would change a lane path ("..", "/", "%",
// "?", "#", "\\") or could not be typed.
func PlausibleName(s string) bool {
	letter := false
	for _, r := range s {
		switch {
		case strings.ContainsRune("/\\%?#", r), unicode.IsControl(r):
			return false
		case unicode.IsLetter(r):
			letter = true
		}
	}
	return letter && !strings.Contains(s, "..") && len(s) <= 100
}

// traineeIDSources are the trainee tools that give ids of each kind: the
// trainee set's refusal of a wrong id names them, not the coach tools
// ids.NotFound names.
var traineeIDSources = map[ids.Kind]string{
	ids.Session:   "list_sessions",
	ids.Goal:      "manage_goals (action list)",
	ids.Benchmark: "get_benchmarks",
	ids.Program:   "list_programs",
	ids.PlanDraft: "generate_weekly_plan",
}

// traineeNotFound is ids.NotFound for the trainee set.
func traineeNotFound(want ids.Kind, id string) string {
	source, ok := traineeIDSources[want]
	if !ok {
		return ids.NotFound(want, id)
	}
	return fmt.Sprintf("%s is not %s %s id; use %s to get one.", schema.ShortJSON(id), article(want.Noun()), want.Noun(), source)
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}

// idArgumentsOf is the id-typed arguments of a tool's input schema.
// idArg is an argument of a tool that carries an id, and the id's kind.
type idArg struct {
	name string
	kind ids.Kind
}

// idArgumentsOf are the id arguments of a tool's input, in name order
// (worked out once, when the tool is defined, not on each call).
func idArgumentsOf(s *jsonschema.Schema) []idArg {
	var out []idArg
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if k, ok := IDArguments[name]; ok {
			out = append(out, idArg{name, k})
		}
	}
	return out
}

// checkIDs refuses the first id argument (in name order) that is not an id
// of its kind. The arguments have passed the schema, so each is a string or
// a list of strings.
func checkIDs(tool string, trainee bool, idArgs []idArg, m map[string]json.RawMessage) error {
	notFound := ids.NotFound
	if trainee {
		notFound = traineeNotFound
	}
	for _, a := range idArgs {
		raw, ok := m[a.name]
		if !ok {
			continue
		}
		var values []string
		var one string
		if json.Unmarshal(raw, &one) == nil {
			if one == "" {
				continue // an empty filter is no filter; a required id has minLength 1
			}
			values = []string{one}
		} else if json.Unmarshal(raw, &values) != nil {
			continue
		}
		for _, id := range values {
			if a.kind == ids.Coach && (id == "me" || id == "all") {
				continue // the lane's coach scope: the caller's own, or the whole studio
			}
			if _, looksLikeID := ids.KindOf(id); looksLikeID && !ids.Is(id, a.kind) || !looksLikeID && !(Named[a.kind] && PlausibleName(id)) {
				return argumentError(tool, a.name+": "+notFound(a.kind, id))
			}
		}
	}
	return nil
}

// ArgumentError is a tool's refusal of the model's arguments, before any
// lane call. Sentence says what to fix, naming the tool.
type ArgumentError struct {
	Tool     string
	Sentence string
}

func (e *ArgumentError) Error() string { return e.Sentence }

func argumentError(tool, problem string) *ArgumentError {
	return &ArgumentError{Tool: tool, Sentence: "Invalid arguments for " + tool + ": " + problem}
}

// segment escapes one path segment of a lane path.
func segment(s string) string { return url.PathEscape(s) }
