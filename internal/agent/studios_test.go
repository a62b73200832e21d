package agent

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// transcript is what the model was handed in one request, history included.
func transcript(req fakes.MessagesRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		for _, c := range m.Content {
			b.WriteString(c.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func tasksOf(t *testing.T, st store.Store, studioID string) []string {
	t.Helper()
	list, err := st.Studio(studioID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range list.Items {
		out = append(out, task.Title)
	}
	return out
}

// A studio that adds a phone already talking to another studio does not
// take the conversation over: the coach stays where she chose (history,
// tools, tasks) until she switches, and then nothing of the other studio's
// conversation crosses over.
func TestAnotherStudioCannotTakeOverAPhone(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		h := newHarness(t, st)
		// Older is created first, which the old "most recently active" rule
		// (with nothing writing lastActiveAt) made win.
		older := domain.Studio{Name: "Older", Slug: "older-" + time.Now().Format("150405.000000")}
		if err := st.CreateStudio(ctx, &older); err != nil {
			t.Fatal(err)
		}
		newer, dana := studioWithCoach(t, st, "Newer", "Dana", "050-123-4444", time.Now())
		const sender, e164 = "972501234444", "+972501234444"
		h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
			if strings.Contains(req.LastUserText(), "remind") && len(req.ToolResults()) == 0 {
				return fakes.CallTool("create_task", map[string]any{"title": "reminder: " + req.LastUserText()})
			}
			return fakes.Text("answer to " + req.LastUserText())
		})

		h.send(sender, "c", "what about newer-secret-trainee?")
		h.waitIdle()
		reqs := h.llm.Requests()
		if len(reqs) != 1 || !strings.Contains(reqs[0].SystemText(), `"Newer"`) {
			t.Fatalf("the first turn did not run in Newer: %d requests", len(reqs))
		}
		if link, err := st.Agent().PhoneLink(ctx, e164); err != nil || link.StudioID != newer.ID || link.CoachID != dana.ID {
			t.Fatalf("link after the first turn: %+v, %v; want Newer's coach", link, err)
		}
		if got, _ := st.Studio(newer.ID).GetCoach(ctx, dana.ID); got.LastActiveAt == nil || !got.LastActiveAt.Equal(h.clock.Now()) {
			t.Fatalf("lastActiveAt = %v; want the turn's time %v", got.LastActiveAt, h.clock.Now())
		}

		// Older adds a coach with the same phone (any studio key may).
		addCoach(t, st, older.ID, "Dana at Older", "+972 50 123 4444", true, time.Now().Add(time.Hour))
		h.clock.Advance(time.Minute)
		h.send(sender, "c", "remind me to call newer-secret-trainee")
		h.waitIdle()
		reqs = h.llm.Requests()
		last := reqs[len(reqs)-1]
		if !strings.Contains(last.SystemText(), `"Newer"`) || strings.Contains(last.SystemText(), `"Older"`) {
			t.Fatalf("after Older added the phone the turn ran in:\n%s", last.SystemText())
		}
		if !strings.Contains(transcript(last), "what about newer-secret-trainee?") {
			t.Fatalf("Newer's history was not handed to Newer's turn:\n%s", transcript(last))
		}
		if got := tasksOf(t, st, newer.ID); len(got) != 1 {
			t.Fatalf("Newer's tasks = %q; want the reminder", got)
		}
		if got := tasksOf(t, st, older.ID); len(got) != 0 {
			t.Fatalf("Older's tasks = %q; want none", got)
		}
		if as := agentSettingsOf(t, st, older.ID); as.APIKey != "" {
			t.Fatal("the agent minted a key for Older, which the coach never chose")
		}
		for _, text := range h.sms.Texts() {
			if strings.Contains(text, "Older") {
				t.Fatalf("the coach was told about Older before asking: %q", text)
			}
		}

		// She switches: asked with a numbered list, her number links Older.
		modelCalls := len(h.llm.Requests())
		h.send(sender, "c", SwitchStudioCommand)
		h.waitIdle()
		texts := h.sms.Texts()
		question := texts[len(texts)-1]
		if !strings.Contains(question, "1. Newer\n") || !strings.Contains(question, "2. Older\n") || !strings.Contains(question, SwitchStudioCommand) {
			t.Fatalf("the switch question is %q; want Newer and Older numbered", question)
		}
		h.send(sender, "c", "2")
		h.waitIdle()
		texts = h.sms.Texts()
		if texts[len(texts)-1] != msgStudioChosen("Older") {
			t.Fatalf("after answering 2: %q", texts[len(texts)-1])
		}
		if n := len(h.llm.Requests()); n != modelCalls {
			t.Fatalf("the question and the answer reached the model (%d calls, want %d)", n, modelCalls)
		}
		h.send(sender, "c", "what about my trainees?")
		h.waitIdle()
		reqs = h.llm.Requests()
		last = reqs[len(reqs)-1]
		if !strings.Contains(last.SystemText(), `"Older"`) {
			t.Fatalf("after choosing Older the turn ran in:\n%s", last.SystemText())
		}
		if tr := transcript(last); strings.Contains(tr, "newer-secret-trainee") {
			t.Fatalf("Newer's conversation reached Older's turn:\n%s", tr)
		}
		texts = h.sms.Texts()
		if texts[len(texts)-2] != welcome("Dana at Older", "Older") {
			t.Fatalf("a first turn in Older should start with its welcome; sent %q", texts[len(texts)-2:])
		}
		// The caps are counted per studio.
		day := h.clock.Now().UTC().Format(time.DateOnly)
		for studio, want := range map[string]int{newer.ID: 2, older.ID: 1} {
			if n, err := st.Agent().CapCount(ctx, e164, studio, day); err != nil || n != want {
				t.Fatalf("cap of studio %s = %d, %v; want %d", studio, n, err, want)
			}
		}

		// And back: Newer's own conversation is there again.
		h.send(sender, "c", SwitchStudioCommand)
		h.waitIdle()
		h.send(sender, "c", "1")
		h.waitIdle()
		h.send(sender, "c", "and now?")
		h.waitIdle()
		reqs = h.llm.Requests()
		last = reqs[len(reqs)-1]
		if tr := transcript(last); !strings.Contains(last.SystemText(), `"Newer"`) || !strings.Contains(tr, "newer-secret-trainee") || strings.Contains(tr, "what about my trainees?") {
			t.Fatalf("back in Newer the model saw:\n%s", tr)
		}
	})
}

// A phone on two studios with no link is asked which one before anything
// else; an answer that is not one of the numbers asks again.
func TestPhoneOnTwoStudiosIsAsked(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		h := newHarness(t, st)
		alpha, _ := studioWithCoach(t, st, "Alpha", "Yael", "0525556666", time.Now())
		beta, yaelB := studioWithCoach(t, st, "Beta", "Yael B", "+972525556666", time.Now())
		const sender, e164 = "972525556666", "+972525556666"

		h.send(sender, "c", "hello, what is on today?")
		h.waitIdle()
		h.send(sender, "c", "3")
		h.waitIdle()
		texts := h.sms.Texts()
		want := msgChooseStudio([]store.CoachRef{{StudioID: alpha.ID, StudioName: "Alpha"}, {StudioID: beta.ID, StudioName: "Beta"}})
		if !slices.Equal(texts, []string{want, want}) {
			t.Fatalf("sent %q; want the question twice", texts)
		}
		if len(h.llm.Requests()) != 0 {
			t.Fatal("the model was called before the coach chose a studio")
		}
		if _, err := st.Agent().PhoneLink(ctx, e164); err == nil {
			t.Fatal("a phone on two studios was linked without asking")
		}
		// Deciding the answer twice (as after a crash before the decision
		// was committed) decides the same: nothing is linked before the
		// commit, so a resumed turn never takes the answer for a question.
		for range 2 {
			d, err := h.agent.decide(ctx, &turn{ID: "amg_uncommitted", Phone: e164, Text: "2"})
			if err != nil || d.outcome != "studio_chosen" || d.link == nil || d.link.CoachID != yaelB.ID {
				t.Fatalf("deciding the answer: %+v, %v", d, err)
			}
		}
		if _, err := st.Agent().PhoneLink(ctx, e164); err == nil {
			t.Fatal("the phone was linked before the turn's decision was committed")
		}
		h.send(sender, "c", "2")
		h.waitIdle()
		if link, err := st.Agent().PhoneLink(ctx, e164); err != nil || link.StudioID != beta.ID || link.CoachID != yaelB.ID {
			t.Fatalf("link after answering 2: %+v, %v", link, err)
		}
		h.send(sender, "c", "hello, what is on today?")
		h.waitIdle()
		reqs := h.llm.Requests()
		if len(reqs) != 1 || !strings.Contains(reqs[0].SystemText(), `"Beta"`) {
			t.Fatalf("the first real turn did not run in Beta")
		}
		// With one studio, the switch command says so and changes nothing.
		if err := st.Studio(alpha.ID).UpdateCoach(ctx, &domain.Coach{ID: mustCoachID(t, st, alpha.ID, "Yael"), Name: "Yael", Active: false}); err != nil {
			t.Fatal(err)
		}
		h.send(sender, "c", SwitchStudioCommand)
		h.waitIdle()
		texts = h.sms.Texts()
		if texts[len(texts)-1] != msgOnlyStudio("Beta") {
			t.Fatalf("switch with one studio left: %q", texts[len(texts)-1])
		}
	})
}

func mustCoachID(t *testing.T, st store.Store, studioID, name string) string {
	t.Helper()
	list, err := st.Studio(studioID).ListCoaches(context.Background(), store.Page{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list.Items {
		if c.Name == name {
			return c.ID
		}
	}
	t.Fatalf("no coach %s in %s", name, studioID)
	return ""
}

// When the phone's studio lets its coach go, a studio that added the phone
// meanwhile is not taken silently: the coach is asked.
func TestLostLinkIsNotTakenOverSilently(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		h := newHarness(t, st)
		first, coach := studioWithCoach(t, st, "First", "Lior", "0527778888", time.Now())
		seedHistory(t, h, "+972527778888")
		h.send("972527778888", "c", "hello")
		h.waitIdle()
		second := domain.Studio{Name: "Second", Slug: "second-" + time.Now().Format("150405.000000")}
		if err := st.CreateStudio(ctx, &second); err != nil {
			t.Fatal(err)
		}
		addCoach(t, st, second.ID, "Lior", "0527778888", true, time.Now())
		coach.Active = false
		if err := st.Studio(first.ID).UpdateCoach(ctx, &coach); err != nil {
			t.Fatal(err)
		}
		calls := len(h.llm.Requests())
		h.send("972527778888", "c", "what is new?")
		h.waitIdle()
		texts := h.sms.Texts()
		if q := texts[len(texts)-1]; !strings.Contains(q, "1. Second\n") || len(h.llm.Requests()) != calls {
			t.Fatalf("after the linked coach left: sent %q, %d model calls; want the question", q, len(h.llm.Requests())-calls)
		}
		h.send("972527778888", "c", "1")
		h.waitIdle()
		if link, err := st.Agent().PhoneLink(ctx, "+972527778888"); err != nil || link.StudioID != second.ID {
			t.Fatalf("link after answering 1: %+v, %v", link, err)
		}
	})
}
