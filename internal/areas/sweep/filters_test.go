package sweep_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// An id filter that names nothing of this studio is the not-found sentence,
// not an empty list; an unknown tag names the studio's tags.
func TestFiltersWithUnknownIDsAreNotFound(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("flt")
		other := e.Seed("flt2")
		k := f.Key
		cases := []struct {
			path, want string
		}{
			{"/trainees/search?coachId=coa_nope", "No coach with id coa_nope exists in this studio. Use list_coaches to get a valid id."},
			{"/trainees/search?coachId=" + f.Product.ID, f.Product.ID + " is a plan id; this needs a coach id (from list_coaches)."},
			{"/trainees/search?coachId=" + other.Coach.ID, "No coach with id " + other.Coach.ID + " exists in this studio. Use list_coaches to get a valid id."},
			{"/tasks?clientId=" + f.Product.ID, f.Product.ID + " is a plan id; this needs a trainee id (from search_trainees)."},
			{"/tasks?clientId=" + other.Trainee.ID, "No trainee with id " + other.Trainee.ID + " exists in this studio. Use search_trainees to get a valid id."},
			{"/tasks?coachId=" + f.Trainee.ID, f.Trainee.ID + " is a trainee id; this needs a coach id (from list_coaches)."},
			{"/trainees/search?tag=NoSuchTag", `This studio has no tag named "NoSuchTag"; its tags are ` + f.Tag.Name + "."},
			{"/trainees/search?tag=" + url.QueryEscape(other.Tag.Name), `This studio has no tag named "` + other.Tag.Name + `"; its tags are ` + f.Tag.Name + "."},
		}
		for _, c := range cases {
			a := e.Fails(404, "NOT_FOUND", e.Call(k, "GET", c.path, nil))
			if !strings.HasPrefix(a.Message(), c.want) {
				t.Errorf("GET %s: %q, want it to start %q", c.path, a.Message(), c.want)
			}
		}

		// Valid filters still filter.
		var res kit.List[struct{ ID string }]
		e.OK(200, e.Call(k, "GET", "/trainees/search?coachId="+f.Coach.ID+"&tag="+url.QueryEscape(f.Tag.Name), nil)).Into(t, &res)
		if res.Total != 1 || res.Items[0].ID != f.Trainee.ID {
			t.Errorf("valid filters: %+v", res)
		}
		e.OK(200, e.Call(k, "GET", "/tasks?clientId="+f.Trainee.ID+"&coachId="+f.Coach.ID, nil)).Into(t, &res)
		if res.Total != 1 {
			t.Errorf("valid task filters: %+v", res)
		}

		// A studio without tags says so.
		_, bare, _ := e.Studio("flt-bare", "pro")
		a := e.Fails(404, "NOT_FOUND", e.Call(bare, "GET", "/trainees/search?tag=vip", nil))
		if !strings.Contains(a.Message(), "it has no tags yet") {
			t.Errorf("no tags: %q", a.Message())
		}
	})
}
