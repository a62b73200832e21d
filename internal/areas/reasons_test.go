package areas_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// Every reason the roster's needs-attention can show filters it: the
// roster's own and every reason an area declares it adds (payment_failed
// among them), each in the route's contract, and so in needs_attention's
// input, with its meaning in the description, and each a filter the lane
// takes (200, not a refusal).
func TestEveryDeclaredReasonFiltersNeedsAttention(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		all := areas.All(areas.Options{})
		want := slices.Clone(training.Reasons)
		var declared []lane.ReasonCode
		for _, d := range lane.Declarations(all) {
			declared = append(declared, d.Adds.Codes...)
			if d.Adds.Reasons != nil && len(d.Adds.Codes) == 0 {
				t.Errorf("an area adds reasons and declares no codes")
			}
		}
		for _, c := range declared {
			want = append(want, c.Code)
		}
		if !slices.ContainsFunc(declared, func(c lane.ReasonCode) bool { return c.Code == "payment_failed" }) {
			t.Fatalf("the payments webhook's payment_failed is not declared: %+v", declared)
		}

		e := lanetest.New(t, st)
		i := slices.IndexFunc(e.Lane.Contracts(), func(c lane.Contract) bool {
			return c.Method == "GET" && c.Path == "/trainees/needs-attention"
		})
		reason := e.Lane.Contracts()[i].Input.Properties["reason"]
		var enum []string
		for _, v := range reason.Enum {
			enum = append(enum, v.(string))
		}
		if !slices.Equal(enum, want) {
			t.Fatalf("needs-attention's reason filter takes %v; want every reason, %v", enum, want)
		}
		for _, c := range declared {
			said := c.Code
			if c.Means != "" {
				said += " (" + c.Means + ")"
			}
			if !strings.Contains(reason.Description, said) {
				t.Errorf("the reason filter's description does not say %q: %s", said, reason.Description)
			}
		}
		// The filter's description is the lane's: a second lane in the same
		// process does not say the declared reasons twice.
		again := lanetest.New(t, st).Lane.Contracts()[i].Input.Properties["reason"]
		if again.Description != reason.Description || len(again.Enum) != len(reason.Enum) {
			t.Fatalf("a second lane's reason filter: %q %v", again.Description, again.Enum)
		}

		// Nor does a lane of other areas change this lane's filter: each
		// lane's reasons are its own, whatever the input type shares.
		kit.New(t, st, kit.Options{Areas: append([]lane.Area{misdeclared{}}, areas.All(areas.Options{})...)})
		var after []string
		for _, v := range e.Lane.Contracts()[i].Input.Properties["reason"].Enum {
			after = append(after, v.(string))
		}
		if !slices.Equal(after, want) {
			t.Fatalf("after another lane was built, this lane's reason filter takes %v; want %v", after, want)
		}

		f := e.Seed("reasons")
		for _, code := range want {
			e.OK(200, e.Call(f.Key, "GET", "/trainees/needs-attention?reason="+code, nil))
		}
		e.Refused("reason", e.Call(f.Key, "GET", "/trainees/needs-attention?reason=owes_money", nil))
	})
}

// misdeclared adds a reason it does not declare.
type misdeclared struct{}

func (misdeclared) Routes(*lane.Routes) {}

func (misdeclared) Declare(d *lane.Declaration) {
	d.Adds.Codes = []lane.ReasonCode{{Code: "declared"}}
	d.Adds.Reasons = func(_ *lane.Call, trainees []string) (map[string][]training.Reason, error) {
		out := map[string][]training.Reason{}
		for _, id := range trainees {
			out[id] = []training.Reason{{Code: "undeclared", Severity: 5, Message: "Said without being declared."}}
		}
		return out, nil
	}
}

// A reason an area answers without declaring it would be shown and never
// filterable: needs-attention refuses to answer it (500) rather than show it.
func TestAnUndeclaredReasonIsNotShown(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st, kit.Options{Areas: append(areas.All(areas.Options{}), misdeclared{})})
		f := e.Seed("undeclared")
		if a := e.Call(f.Key, "GET", "/trainees/needs-attention", nil); a.Status != 500 || strings.Contains(a.Raw, "Said without being declared") {
			t.Fatalf("needs-attention with an undeclared reason: %d %s", a.Status, a.Raw)
		}
	})
}
