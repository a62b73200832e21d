package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools/executor"
)

// A turn that loses its lease after create_task went through is re-run
// from the start by the real resume path; the re-run's create_task (the
// model formats its input differently this time) is answered from the
// first call's record: one task, and the same task both times, the second
// marked as a repeat.
func TestResumedTurnDoesNotRepeatAWrite(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studio, coach := studioWithCoach(t, st, "Studio", "Noa", "0502323232", time.Now())
		seedHistory(t, h, "+972502323232")
		h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
			switch n {
			case 0:
				return fakes.Reply{ToolUses: []fakes.ToolUse{
					{Name: "create_task", Input: map[string]any{"title": "Call Dana", "priority": 2}},
					{Name: "list_tags", Input: map[string]any{}},
				}}
			case 1:
				// The worker stalls here and its lease is gone (as when it
				// expires): the turn is cancelled, and the job's retry or the
				// recovery job runs it again. Hold this call until the re-run
				// has reached the model.
				if owner, _, err := st.Agent().LeaseExpiry(context.Background(), "phone:+972502323232"); err != nil || st.Agent().ReleaseLease(context.Background(), "phone:+972502323232", owner) != nil {
					return fakes.Reply{Status: 500}
				}
				deadline := time.Now().Add(45 * time.Second)
				for len(h.llm.Requests()) < 3 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				return fakes.Text("never delivered")
			case 2:
				return fakes.Reply{ToolUses: []fakes.ToolUse{
					{Name: "create_task", Input: json.RawMessage(`{ "priority" : 2,  "title": "Call Dana" }`)},
					{Name: "list_tags", Input: map[string]any{}},
				}}
			default:
				return fakes.Text("done")
			}
		})
		h.send("972502323232", "c", "remind me to call Dana")
		h.waitIdle()
		waitFor(t, "the re-run turn to finish", func() bool {
			_, err := st.Agent().OpenTurn(context.Background(), "+972502323232")
			return errors.Is(err, store.ErrNotFound) && len(h.sms.Texts()) > 0
		})

		reqs := h.llm.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d model calls; want 4 (two per run of the turn)", len(reqs))
		}
		first, second := reqs[1].ToolResults(), reqs[3].ToolResults()
		if len(first) != 2 || len(second) != 2 || first[0].IsError || second[0].ResultText() != first[0].ResultText()+"\n\n"+executor.RepeatNote("create_task") {
			t.Fatalf("create_task answered %q on the first run and %q on the re-run; want the same task, marked as a repeat", texts(first), texts(second))
		}
		var task domain.Task
		if err := json.Unmarshal([]byte(first[0].ResultText()), &task); err != nil || task.Title != "Call Dana" {
			t.Fatalf("tool result %q: %v", first[0].ResultText(), err)
		}
		// "Remind me" is the coach's own: the assistant speaks for her.
		if task.CoachID == nil || *task.CoachID != coach.ID {
			t.Fatalf("the task's coach = %v; want %s, who asked", task.CoachID, coach.ID)
		}
		l, err := st.Studio(studio.ID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 10}})
		if err != nil || l.Total != 1 || l.Items[0].ID != task.ID {
			t.Fatalf("studio tasks %+v, %v; want only %s", l.Items, err, task.ID)
		}
		if got := h.sms.Texts(); !slices.Equal(got, []string{"done"}) {
			t.Fatalf("sent %q; want the re-run's reply once", got)
		}
		// One key, for the write only; reads carry none.
		var keys []string
		rows, err := st.DB().Query(`SELECT key FROM idempotency_keys`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		if _, key, _ := strings.Cut(keys[0], "/"); len(keys) != 1 || !strings.HasPrefix(key, executor.RepeatPrefix) {
			t.Fatalf("idempotency keys %q; want one derived repeat:… key, under the coach", keys)
		}
	})
}

func texts(blocks []fakes.Block) []string {
	var out []string
	for _, b := range blocks {
		out = append(out, b.ResultText())
	}
	return out
}

// The coach asks for the same task twice in two turns (the model is unsure
// the first went through): one task, and the second turn's model reads the
// first task marked as a repeat, as a client of /mcp does.
func TestAWriteAskedTwiceIsDoneOnce(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Studio", "Noa", "0504545454", time.Now())
		seedHistory(t, h, "+972504545454")
		h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
			if len(req.ToolResults()) > 0 {
				return fakes.Text("done")
			}
			return fakes.CallTool("create_task", map[string]any{"title": "Call Dana", "priority": 2})
		})
		h.send("972504545454", "c", "remind me to call Dana")
		h.waitIdle()
		h.send("972504545454", "c", "did you? remind me to call Dana")
		h.waitIdle()
		var results []fakes.Block
		for _, r := range h.llm.Requests() {
			results = append(results, r.ToolResults()...)
		}
		if len(results) != 2 || results[0].IsError || results[1].IsError {
			t.Fatalf("tool results %q; want two create_task answers", texts(results))
		}
		if results[1].ResultText() != results[0].ResultText()+"\n\n"+executor.RepeatNote("create_task") {
			t.Fatalf("second create_task answered %q; want the first task %q marked as a repeat", results[1].ResultText(), results[0].ResultText())
		}
		l, err := st.Studio(studio.ID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 10}})
		if err != nil || l.Total != 1 {
			t.Fatalf("studio tasks %+v, %v; want one", l.Items, err)
		}
	})
}
