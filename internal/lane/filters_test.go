package lane_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/store"
)

// An id filter that names nothing of this studio is the not-found sentence,
// not an empty list; an unknown tag names the studio's tags.
func TestFiltersWithUnknownIDsAreNotFound(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("flt")
		other := e.seed("flt2")
		k := f.key
		cases := []struct {
			path, want string
		}{
			{"/trainees/search?coachId=coa_nope", "No coach with id coa_nope exists in this studio. Use list_coaches to get a valid id."},
			{"/trainees/search?coachId=" + f.product.ID, f.product.ID + " is a plan id; this needs a coach id (from list_coaches)."},
			{"/trainees/search?coachId=" + other.coach.ID, "No coach with id " + other.coach.ID + " exists in this studio. Use list_coaches to get a valid id."},
			{"/tasks?clientId=" + f.product.ID, f.product.ID + " is a plan id; this needs a trainee id (from search_trainees)."},
			{"/tasks?clientId=" + other.trainee.ID, "No trainee with id " + other.trainee.ID + " exists in this studio. Use search_trainees to get a valid id."},
			{"/tasks?coachId=" + f.trainee.ID, f.trainee.ID + " is a trainee id; this needs a coach id (from list_coaches)."},
			{"/trainees/search?tag=NoSuchTag", `This studio has no tag named "NoSuchTag"; its tags are ` + f.tag.Name + "."},
			{"/trainees/search?tag=" + url.QueryEscape(other.tag.Name), `This studio has no tag named "` + other.tag.Name + `"; its tags are ` + f.tag.Name + "."},
		}
		for _, c := range cases {
			a := e.fails(404, "NOT_FOUND", e.call(k, "GET", c.path, nil))
			if !strings.HasPrefix(a.message(), c.want) {
				t.Errorf("GET %s: %q, want it to start %q", c.path, a.message(), c.want)
			}
		}

		// Valid filters still filter.
		var res list[struct{ ID string }]
		e.ok(200, e.call(k, "GET", "/trainees/search?coachId="+f.coach.ID+"&tag="+url.QueryEscape(f.tag.Name), nil)).into(t, &res)
		if res.Total != 1 || res.Items[0].ID != f.trainee.ID {
			t.Errorf("valid filters: %+v", res)
		}
		e.ok(200, e.call(k, "GET", "/tasks?clientId="+f.trainee.ID+"&coachId="+f.coach.ID, nil)).into(t, &res)
		if res.Total != 1 {
			t.Errorf("valid task filters: %+v", res)
		}

		// A studio without tags says so.
		_, bare, _ := e.studio("flt-bare", "pro")
		a := e.fails(404, "NOT_FOUND", e.call(bare, "GET", "/trainees/search?tag=vip", nil))
		if !strings.Contains(a.message(), "it has no tags yet") {
			t.Errorf("no tags: %q", a.message())
		}
	})
}
