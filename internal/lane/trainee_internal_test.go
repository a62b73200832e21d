package lane

import (
	"context"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// A trainee route of none of the three shapes, or without its allow
// list, stops the lane at start-up.
func TestTraineeRouteShapesAreCheckedAtStart(t *testing.T) {
	type empty struct{}
	for _, c := range []struct {
		name, method, path string
		opts               []Opt
		panics             string
	}{
		{"own", "GET", "/trainees/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, ""},
		{"record", "GET", "/sessions/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, ""},
		{"program", "GET", "/programs/{id}", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, ""},
		{"shared", "GET", "/methodologies", []Opt{Trainee(auth.ScopeCoachRead), Shared(), Allow("a")}, ""},
		{"coach only", "GET", "/tasks", nil, ""},
		{"no allow", "GET", "/trainees/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead)}, "no allow() list"},
		{"untraced record", "PATCH", "/injuries/{id}", []Opt{Trainee(auth.ScopeHealthWrite), Allow("a")}, "neither"},
		{"no id, not shared", "GET", "/tasks", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, "neither"},
		{"shared with an id", "GET", "/trainees/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead), Shared(), Allow("a")}, "shared() but names a record"},
		{"allow without trainee", "GET", "/tasks", []Opt{Allow("a")}, "no trainee(scope)"},
		{"tool without trainee", "GET", "/tasks", []Opt{TraineeTool("x")}, "no trainee(scope)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				v := recover()
				msg, _ := v.(string)
				switch {
				case c.panics == "" && v != nil:
					t.Fatalf("panicked: %v", v)
				case c.panics != "" && !strings.Contains(msg, c.panics):
					t.Fatalf("panic %v, want one saying %q", v, c.panics)
				}
			}()
			// The nouns, and the one route: the shapes are checked when the lane is built.
			New(Options{Areas: []Area{routesOf(func(rs *Routes) {
				Add(rs, c.method, c.path, "test", func(*Call, *NoInput) (empty, error) { return empty{}, nil }, c.opts...)
			}), shapeNouns{}}})
		})
	}
}

// routesOf is an area of routes only.
type routesOf func(rs *Routes)

func (f routesOf) Routes(rs *Routes) { f(rs) }

// shapeNouns declare the kinds the shapes name: sessions and programs
// traced to their trainee, injuries not.
type shapeNouns struct{}

func (shapeNouns) Routes(*Routes) {}

func (shapeNouns) Declare(d *Declaration) {
	owner := func(context.Context, store.StudioStore, string) (string, error) { return "", nil }
	d.Nouns = append(d.Nouns,
		Noun{Kind: ids.Trainee, Collections: []string{"trainees"}, Person: true},
		Noun{Kind: ids.Session, Collections: []string{"sessions"}, Owner: owner},
		Noun{Kind: ids.Program, Collections: []string{"programs"}, Owner: owner},
		Noun{Kind: ids.Injury, Collections: []string{"injuries"}},
		Noun{Kind: ids.Task, Collections: []string{"tasks"}})
}
