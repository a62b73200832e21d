//go:build crash

package crashtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// traineeBacklog is more weigh-ins than one turn claims (20 messages, see
// internal/agent/bounds.go), so the killed turn leaves some pending.
const traineeBacklog = 25

// A trainee sends a backlog of weigh-ins bigger than one turn; the server
// is killed with SIGKILL while the first turn is in the model; a new server
// on the same database finishes the work. Every accepted message is claimed
// by a turn, and every accepted weigh-in is written exactly once.
func TestCrashWithATraineeBacklog(t *testing.T) {
	t.Parallel()
	st, url := crashSQLite(t)
	runTraineeBacklogCrash(t, st, url)
}

func TestCrashWithATraineeBacklogPostgres(t *testing.T) {
	t.Parallel()
	st, url := crashPostgres(t)
	runTraineeBacklogCrash(t, st, url)
}

func runTraineeBacklogCrash(t *testing.T, st store.Store, databaseURL string) {
	const phone = "972501234567"
	studioID, traineeID := seedTrainee(t, st, "+"+phone)

	inModel := make(chan int, 1)
	releaseModel := make(chan struct{})
	var held sync.Once
	llm := fakes.NewAnthropic(func(n int, req fakes.MessagesRequest) fakes.Reply {
		first := false
		if strings.HasPrefix(req.Path, "/a/") {
			held.Do(func() { first = true })
		}
		if first {
			inModel <- len(weighIns.WeighIns(req.LastUserText()))
			<-releaseModel // the process is killed while we wait
		}
		return weighIns.Reply(req)
	})
	defer llm.Close()
	sms := fakes.NewSmartSend()
	defer sms.Close()

	a := start(t, databaseURL, "a", llm, sms)
	a.send(t, phone, "conv-t", "כן")
	waitFor(t, st, 60*time.Second, "the answer to her consent", func() bool { return len(sms.Sent()) == 1 })
	waitIdle(t, st, 60*time.Second)

	want := map[float64]bool{}
	for i := range traineeBacklog {
		w := 70 + float64(i+1)/10
		a.send(t, phone, "conv-t", fmt.Sprintf("שקלתי %.1f", w)) // fails the test unless accepted
		want[tenth(w)] = true
	}
	select {
	case n := <-inModel:
		t.Logf("the first turn reached the model with %d weigh-ins", n)
	case <-time.After(60 * time.Second):
		dumpState(t, st)
		t.Fatal("the backlog's first turn never reached the model")
	}
	a.Kill()
	killed := time.Now()
	close(releaseModel)

	start(t, databaseURL, "b", llm, sms)
	waitFor(t, st, 240*time.Second, "every message to be claimed", func() bool {
		return countMessages(t, st, "") == countMessages(t, st, "claimed")
	})
	waitIdle(t, st, 240*time.Second)
	t.Logf("the backlog was finished %s after the kill", time.Since(killed).Round(100*time.Millisecond))

	total, claimed := countMessages(t, st, ""), countMessages(t, st, "claimed")
	if total != traineeBacklog+1 || claimed != total {
		t.Errorf("%d of %d messages claimed by a turn; want all %d accepted", claimed, total, traineeBacklog+1)
	}
	written := writtenWeights(t, st, studioID, traineeID)
	for w := range want {
		if written[w] != 1 {
			t.Errorf("weigh-in %.1f was written %d times; want once", w, written[w])
		}
	}
	for w, n := range written {
		if !want[w] {
			t.Errorf("weight %.1f was written %d times, but she never sent it", w, n)
		}
	}
	var open int
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_turns WHERE state <> 'done'`).Scan(&open); err != nil || open != 0 {
		t.Errorf("%d turns left open, %v", open, err)
	}
	echoes := 0
	for _, m := range sms.Sent() {
		echoes += strings.Count(m.Text, "✅ נרשמה שקילה")
	}
	t.Logf("turns by outcome: %v; %d weigh-ins echoed", turnOutcomes(t, st), echoes)
	if t.Failed() {
		dumpState(t, st)
	}
}

// turnOutcomes counts the agent's turns by outcome.
func turnOutcomes(t *testing.T, st store.Store) map[string]int {
	t.Helper()
	rows, err := st.DB().Query(`SELECT coalesce(outcome, ''), count(*) FROM agent_turns GROUP BY coalesce(outcome, '')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var o string
		var n int
		if err := rows.Scan(&o, &n); err != nil {
			t.Fatal(err)
		}
		out[o] = n
	}
	return out
}

// seedTrainee creates a studio with the trainee assistant on, a coach, and
// a trainee with phone; it returns the studio's and the trainee's ids.
func seedTrainee(t *testing.T, st store.Store, phone string) (string, string) {
	t.Helper()
	ctx := context.Background()
	s := domain.Studio{Name: "Crash Studio", Slug: fmt.Sprintf("crash-%d", time.Now().UnixNano())}
	if err := st.CreateStudio(ctx, &s); err != nil {
		t.Fatal(err)
	}
	coachPhone, now := "0521000007", time.Now()
	c := domain.Coach{Name: "Omer", Phone: &coachPhone, Active: true, LastActiveAt: &now}
	if err := st.Studio(s.ID).CreateCoach(ctx, &c); err != nil {
		t.Fatal(err)
	}
	tr := domain.Trainee{FirstName: "דנה", LastName: "לוי", Phone: phone, Status: "active", CoachIDs: []string{c.ID}}
	if err := st.Studio(s.ID).CreateTrainee(ctx, &tr); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PatchStudioSettings(ctx, st, s.ID, map[string]any{"traineeAssistant": true}); err != nil {
		t.Fatal(err)
	}
	return s.ID, tr.ID
}

// weighIns is a model that obeys the trainee line by line: each step logs
// the next weigh-in of her turn ("שקלתי 70.4") it has not logged yet, one
// tool call per step, and answers once all are logged.
var weighIns = fakes.NewWeighInModel("שקלתי")

// countMessages is how many agent messages are in state ("" is all).
func countMessages(t *testing.T, st store.Store, state string) int {
	t.Helper()
	q, args := `SELECT count(*) FROM agent_messages`, []any{}
	if state != "" {
		q, args = q+` WHERE state = $1`, []any{state}
	}
	var n int
	if err := st.DB().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// writtenWeights counts the trainee's weights rows by value.
func writtenWeights(t *testing.T, st store.Store, studioID, traineeID string) map[float64]int {
	t.Helper()
	rows, err := st.DB().Query(`SELECT weight_kg FROM weights WHERE studio_id = $1 AND trainee_id = $2`, studioID, traineeID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[float64]int{}
	for rows.Next() {
		var w float64
		if err := rows.Scan(&w); err != nil {
			t.Fatal(err)
		}
		out[tenth(w)]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func tenth(w float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(w, 'f', 1, 64), 64)
	return v
}
