package executor_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

func names(set []tools.Tool) []string {
	var out []string
	for _, t := range set {
		out = append(out, t.Name)
	}
	return out
}

// A mistyped or half-remembered name answers the tools it most likely
// meant, for every set; a name close to nothing lists the set.
func TestAnUnknownToolNamesTheClosestTools(t *testing.T) {
	coach, trainee, platform := names(tools.All()), names(tools.Trainee()), names(tools.Platform())
	cases := []struct {
		set  []string
		name string
		want []string // each must be among the suggestions
		not  []string
	}{
		{coach, "list_plan", []string{"list_plans"}, nil},
		{coach, "serch_trainees", []string{"search_trainees"}, nil},
		{coach, "get_trainees", []string{"get_trainee"}, nil},
		{trainee, "get_plan", []string{"get_my_plan"}, nil},
		{trainee, "get_sessions", []string{"list_sessions", "get_session_details"}, nil},
		{trainee, "record_benchmarks", []string{"record_benchmark"}, nil},
		{platform, "verify", nil, nil},
		{platform, "confirm_code", []string{"confirm_verification"}, nil},
		{platform, "studio_info", []string{"get_studio_info"}, []string{"sign_out"}},
	}
	for _, c := range cases {
		got := executor.Closest(c.name, c.set, 3)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: closest %v; want %s among them", c.name, got, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("%s: closest %v holds %s", c.name, got, n)
			}
		}
		if len(got) > 3 {
			t.Errorf("%s: %d suggestions", c.name, len(got))
		}
	}
	s := executor.UnknownToolSentence("list_plan", coach)
	if !strings.HasPrefix(s, "There is no tool named list_plan; did you mean list_plans") || strings.Contains(s, "search_trainees") {
		t.Errorf("sentence: %s", s)
	}
	if s := executor.UnknownToolSentence("zzzzzzzzzzzz", platform); !strings.Contains(s, "the tools are "+strings.Join(platform, ", ")) {
		t.Errorf("nothing close: %s", s)
	}
}

func FuzzClosest(f *testing.F) {
	set := names(tools.All())
	for _, s := range []string{"", "list_plan", "___", "get-trainee s", "\xff\xfe", strings.Repeat("a", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := executor.Closest(name, set, 3)
		if len(got) > 3 {
			t.Fatalf("%d suggestions", len(got))
		}
		for _, g := range got {
			if !slices.Contains(set, g) {
				t.Fatalf("suggested %q, not a tool", g)
			}
		}
		if slices.Contains(set, name) && (len(got) == 0 || got[0] != name) {
			t.Fatalf("%s is a tool but comes not first: %v", name, got)
		}
	})
}
