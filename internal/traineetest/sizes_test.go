package traineetest

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// maxAnswerTokens bounds every default answer of the trainee set, counted
// as characters / 4 as internal/tools/executor/size_test.go counts them.
const maxAnswerTokens = 4000

// extendHistory gives the trainee three years of history: their demo
// history (sessions with their sets, check-ins, weigh-ins, measurements,
// injuries, benchmark values) laid again before itself, as often as it
// takes to reach three years back. It answers the first day of the history.
func extendHistory(t *testing.T, ss store.StudioStore, traineeID string, today time.Time) string {
	t.Helper()
	ctx := context.Background()
	from := today.AddDate(-1, 0, 0)
	oldest, err := ss.ListSessions(ctx, store.SessionFilter{TraineeID: traineeID, Ascending: true, Page: store.Page{Limit: 1}})
	if err != nil || len(oldest.Items) == 0 {
		t.Fatalf("the trainee has no session to repeat (%v)", err)
	}
	start, _ := time.Parse(time.DateOnly, oldest.Items[0].Date)
	// Whole weeks, so a Monday session stays on a Monday.
	span := (int(today.Sub(start).Hours()/24)/7 + 1) * 7
	sessions, err := ss.SessionsBetween(ctx, traineeID, from.Format(time.DateOnly), today.Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	checkIns, err := ss.ListCheckIns(ctx, traineeID, "", "", store.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	weights, err := ss.WeightsBetween(ctx, traineeID, from, today)
	if err != nil {
		t.Fatal(err)
	}
	measures, err := ss.MeasurementsBetween(ctx, traineeID, from, today)
	if err != nil {
		t.Fatal(err)
	}
	injuries, err := ss.ListInjuries(ctx, traineeID, "")
	if err != nil {
		t.Fatal(err)
	}
	benchmarks, err := ss.ListBenchmarks(ctx, traineeID)
	if err != nil {
		t.Fatal(err)
	}
	first := start
	threeYears := today.AddDate(-3, 0, 0)
	for copies := 1; !first.Before(threeYears); copies++ {
		days := -span * copies
		shiftDay := func(d string) string {
			x, _ := time.Parse(time.DateOnly, d)
			return x.AddDate(0, 0, days).Format(time.DateOnly)
		}
		shift := func(x time.Time) time.Time { return x.AddDate(0, 0, days) }
		var copies []*domain.Session
		for _, s := range sessions {
			if s.Status == "planned" {
				continue
			}
			c := s
			c.ID, c.ProgramID, c.Date, c.CreatedAt, c.UpdatedAt = "", nil, shiftDay(s.Date), shift(s.CreatedAt), shift(s.UpdatedAt)
			if s.CompletedAt != nil {
				at := shift(*s.CompletedAt)
				c.CompletedAt = &at
			}
			if d, _ := time.Parse(time.DateOnly, c.Date); d.Before(first) {
				first = d
			}
			copies = append(copies, &c)
		}
		if err := ss.CreateSessions(ctx, copies); err != nil {
			t.Fatal(err)
		}
		for _, c := range checkIns.Items {
			c.ID, c.Day, c.CreatedAt, c.UpdatedAt = "", shiftDay(c.Day), shift(c.CreatedAt), shift(c.UpdatedAt)
			if _, err := ss.PutCheckIn(ctx, &c); err != nil {
				t.Fatal(err)
			}
		}
		for _, wt := range weights {
			wt.ID, wt.RecordedAt, wt.CreatedAt = "", shift(wt.RecordedAt), shift(wt.CreatedAt)
			if err := ss.CreateWeight(ctx, &wt); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range measures {
			m.ID, m.RecordedAt, m.CreatedAt = "", shift(m.RecordedAt), shift(m.CreatedAt)
			if err := ss.CreateMeasurement(ctx, &m); err != nil {
				t.Fatal(err)
			}
		}
		for _, in := range injuries {
			resolved := shiftDay(in.OnsetOn)
			in.ID, in.OnsetOn, in.Status, in.ResolvedOn, in.CreatedAt, in.UpdatedAt = "", shiftDay(in.OnsetOn), domain.InjuryResolved, &resolved, shift(in.CreatedAt), shift(in.UpdatedAt)
			if err := ss.CreateInjury(ctx, &in); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range benchmarks {
			for _, e := range b.Entries {
				e.ID, e.RecordedAt, e.SessionID = "", shift(e.RecordedAt), nil
				if err := ss.AddBenchmarkEntry(ctx, b.ID, &e); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return first.Format(time.DateOnly)
}

// Every default answer of the trainee set, for a trainee with three years
// of history, is at most maxAnswerTokens; the figures are logged per tool.
func TestDefaultAnswersFitAModelAfterThreeYears(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, nil)
	ctx := context.Background()
	// The demo trainee with the most sessions, signed in.
	var busiest domain.Trainee
	most := -1
	for _, tr := range append(d.others, d.me) {
		if tr.Status != domain.TraineeActive {
			continue
		}
		s, _ := d.ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Page: store.Page{Limit: 1}})
		if s.Total > most {
			busiest, most = tr, s.Total
		}
	}
	first := extendHistory(t, d.ss, busiest.ID, d.clock.Now())
	all, _ := d.ss.ListSessions(ctx, store.SessionFilter{TraineeID: busiest.ID, Page: store.Page{Limit: 1}})
	checkIns, _ := d.ss.ListCheckIns(ctx, busiest.ID, "", "", store.Page{Limit: 1})
	t.Logf("trainee %s: history from %s, %d sessions, %d check-ins", busiest.ID, first, all.Total, checkIns.Total)
	if d.clock.Now().AddDate(-3, 0, 0).Format(time.DateOnly) < first {
		t.Fatalf("the history starts %s, not near three years back", first)
	}

	cs := d.connect(d.token(busiest.Phone, ""))
	type figure struct {
		tool          string
		tokens, chars int
	}
	var figures []figure
	for _, c := range plan(t, cs, d.clock.Now()) {
		// What a model reads: the text, or the structured content when a
		// client hands that over instead; the larger counts.
		chars := len(text(c.result))
		if c.result.StructuredContent != nil {
			b, _ := json.Marshal(c.result.StructuredContent)
			chars = max(chars, len(b))
		}
		figures = append(figures, figure{c.tool, chars / 4, chars})
		if chars/4 > maxAnswerTokens {
			t.Errorf("%s(%v) answers about %d tokens (%d characters / 4); at most %d", c.tool, c.args, chars/4, chars, maxAnswerTokens)
		}
	}
	sort.Slice(figures, func(i, j int) bool { return figures[i].tokens > figures[j].tokens })
	for _, f := range figures {
		t.Logf("%-26s %5d tokens (%6d characters)", f.tool, f.tokens, f.chars)
	}
}
