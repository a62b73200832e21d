package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// seedHistory gives a phone a past exchange so the welcome menu stays out of
// the way of tests about something else.
func seedHistory(t testing.TB, h *harness, e164 string) {
	t.Helper()
	ctx := context.Background()
	coaches, err := h.st.Agent().ActiveCoachesByPhone(ctx, e164)
	if err != nil || len(coaches) == 0 {
		t.Fatalf("no coach has %s to seed history for (%v)", e164, err)
	}
	past := []store.AgentHistoryEntry{{Role: "user", Text: "earlier user"}, {Role: "assistant", Text: "earlier assistant"}}
	for _, c := range coaches {
		if err := h.st.Agent().AppendHistory(ctx, e164, c.StudioID, past, h.clock.Now().Add(-time.Minute), historyEntries); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBurstOfThreeGetsOneReply(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st, func(o *Options) { o.Debounce = time.Second })
		studio, _ := studioWithCoach(t, st, "Studio Dana", "Dana", "050-111-2222", time.Now())
		seedHistory(t, h, "+972501112222")
		h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply { return fakes.Text("got: " + req.LastUserText()) })

		h.send("972501112222", "conv-1", "first")
		h.clock.Advance(time.Second)
		h.send("972501112222", "conv-1", "second")
		h.clock.Advance(time.Second)
		h.send("972501112222", "conv-2", "third")
		h.waitIdle()

		reqs := h.llm.Requests()
		if len(reqs) != 1 {
			t.Fatalf("the model was called %d times; want once for the burst", len(reqs))
		}
		if got := reqs[0].LastUserText(); got != "first\nsecond\nthird" {
			t.Fatalf("the model saw %q; want the three texts joined in order", got)
		}
		sent := h.sms.Sent()
		if len(sent) != 1 || sent[0].Text != "got: first\nsecond\nthird" || sent[0].ConversationID != "conv-2" {
			t.Fatalf("sent %+v; want one reply into the last message's conversation", sent)
		}
		// The history was the stored exchange, and now holds this one too.
		if len(reqs[0].Messages) != 3 || reqs[0].Messages[0].Content[0].Text != "earlier user" {
			t.Fatalf("history handed to the model: %+v", reqs[0].Messages)
		}
		hist, err := h.agent.loadHistory(context.Background(), "+972501112222", studio.ID)
		if err != nil || len(hist) != 4 || hist[3].Text != "got: first\nsecond\nthird" {
			t.Fatalf("history after the turn: %+v, %v", hist, err)
		}
		// The tools ran with a studio key the agent minted for this studio.
		if as := agentSettingsOf(t, st, studio.ID); as.APIKey == "" || as.KeyID == "" {
			t.Fatalf("no key stored: %+v", as)
		}
	})
}

func TestMessageDuringRunningTurnIsAnswered(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		busy := make(chan struct{}, 1)
		h := newHarness(t, st, func(o *Options) {
			o.onBusy = func(string) {
				select {
				case busy <- struct{}{}:
				default:
				}
			}
		})
		studioWithCoach(t, st, "Studio", "Avi", "0502223333", time.Now())
		seedHistory(t, h, "+972502223333")
		release := make(chan struct{})
		var started atomic.Int32
		h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
			if n == 0 {
				started.Add(1)
				<-release // hold the first turn open
			}
			return fakes.Text("answer to " + req.LastUserText())
		})
		h.send("972502223333", "c", "one")
		waitFor(t, "the first turn to reach the model", func() bool { return started.Load() == 1 })
		h.send("972502223333", "c", "two")
		// The second job comes due and finds the phone busy.
		select {
		case <-busy:
		case <-time.After(30 * time.Second):
			t.Fatal("the second reply job never found the phone busy")
		}
		if n := len(h.llm.Requests()); n != 1 {
			t.Fatalf("%d model calls while the first turn held the phone; want 1", n)
		}
		close(release)
		h.waitIdle()
		if got := h.sms.Texts(); !slices.Equal(got, []string{"answer to one", "answer to two"}) {
			t.Fatalf("sent %q; want both messages answered, in order, once", got)
		}
	})
}

func TestDailyCap(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		// A cap of 1 rather than running 200 turns: the rule is the same.
		h := newHarness(t, st, func(o *Options) { o.dailyCap = 1 })
		studio, _ := studioWithCoach(t, st, "Studio", "Gil", "0503334444", time.Now())
		seedHistory(t, h, "+972503334444")
		day := h.clock.Now().UTC().Format(time.DateOnly)
		h.send("972503334444", "c", "q1")
		h.waitIdle()
		if count, err := st.Agent().CapCount(context.Background(), "+972503334444", studio.ID, day); err != nil || count != 1 {
			t.Fatalf("count after one turn = %d, %v", count, err)
		}
		h.send("972503334444", "c", "q201")
		h.waitIdle()
		h.send("972503334444", "c", "q202")
		h.waitIdle()
		h.send("972503334444", "c", "q203")
		h.waitIdle()
		want := []string{"תשובה", msgCapReached}
		if got := h.sms.Texts(); !slices.Equal(got, want) {
			t.Fatalf("sent %q; want one answer then the cap message once", got)
		}
		if n := len(h.llm.Requests()); n != 1 {
			t.Fatalf("model called %d times; want only before the cap", n)
		}
		// A new UTC day opens the phone again.
		h.clock.Advance(24 * time.Hour)
		seedHistory(t, h, "+972503334444")
		h.send("972503334444", "c", "next day")
		h.waitIdle()
		if got := h.sms.Texts(); len(got) != 3 || got[2] != "תשובה" {
			t.Fatalf("sent %q; want an answer the next day", got)
		}
	})
}

// resolve runs coach resolution for a plain message from phone.
func resolve(a *Agent, phone string) (store.CoachRef, error) {
	ref, stop, _, err := a.resolveCoach(context.Background(), &turn{Phone: phone, Text: "q"})
	if err == nil && stop != nil {
		return ref, fmt.Errorf("resolution stopped the turn: %q", stop.messages)
	}
	return ref, err
}

func TestCoachResolutionPin(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		now := time.Now()
		older, oldCoach := studioWithCoach(t, st, "Older Studio", "Old Coach", "050-444-5555", now.Add(-48*time.Hour))
		recent, _ := studioWithCoach(t, st, "Recent Studio", "Recent Coach", "+972 50-444-5555", now)
		inactive := addCoach(t, st, recent.ID, "Gone Coach", "0504445555", false, now.Add(time.Hour))
		studioWithCoach(t, st, "Other", "Someone", "0509999999", now.Add(time.Hour))

		agentWith := func(pins map[string]string) *Agent {
			a, err := New(Options{Store: st, Lane: newLaneClientForTest(t, st), SecretKey: make([]byte, 32), PhoneCoaches: pins, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		pins := map[string]string{"972504445555": oldCoach.ID}
		got, err := resolve(agentWith(pins), "+972504445555")
		if err != nil || got.StudioID != older.ID {
			t.Fatalf("pinned: %+v, %v; want the pinned coach", got, err)
		}
		// A pin to an inactive coach falls back to the phone lookup, which
		// finds two studios and asks.
		_, stop, _, err := agentWith(map[string]string{"0504445555": inactive.ID}).resolveCoach(context.Background(), &turn{Phone: "+972504445555", Text: "q"})
		if err != nil || stop == nil || stop.outcome != "choose_studio" {
			t.Fatalf("pin to an inactive coach: %+v, %v; want the studio question", stop, err)
		}
		if _, err := resolve(agentWith(nil), "+972507777777"); err != errNoCoach {
			t.Fatalf("unknown phone: %v", err)
		}

		// End to end: the pinned studio's name reaches the model, and an
		// unknown number gets the not-linked reply.
		pinned := newHarness(t, st, func(o *Options) { o.PhoneCoaches = pins })
		seedHistory(t, pinned, "+972504445555")
		pinned.send("972504445555", "c", "who am I?")
		pinned.waitIdle()
		reqs := pinned.llm.Requests()
		if len(reqs) != 1 || !strings.Contains(reqs[0].SystemText(), "Older Studio") || !strings.Contains(reqs[0].SystemText(), "Old Coach") {
			t.Fatalf("pinned turn's system prompt: %v", reqs)
		}
		pinned.send("972507777777", "c9", "hello?")
		pinned.waitIdle()
		if got := pinned.sms.Sent(); len(got) != 2 || got[1].Text != msgNotLinked || got[1].ConversationID != "c9" {
			t.Fatalf("sent %+v; want the not-linked reply", got)
		}
	})
}

func TestKillSwitchAndReconnect(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Kill Studio", "Noa", "0505556666", time.Now())
		seedHistory(t, h, "+972505556666")
		trainee := domain.Trainee{FirstName: "Yael", LastName: "Cohen", Phone: "+972541112233", Status: domain.TraineeActive}
		if err := st.Studio(studio.ID).CreateTrainee(ctx, &trainee); err != nil {
			t.Fatal(err)
		}
		// Every question: search for Yael, then answer with what the tool said.
		h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
			if res := req.ToolResults(); len(res) > 0 {
				if res[0].IsError {
					return fakes.Text("tool failed: " + res[0].ResultText())
				}
				return fakes.Text("found: " + res[0].ResultText())
			}
			return fakes.CallTool("search_trainees", map[string]any{"q": "Yael"})
		})
		h.send("972505556666", "c", "find Yael")
		h.waitIdle()
		texts := h.sms.Texts()
		if len(texts) != 1 || !strings.Contains(texts[0], trainee.ID) {
			t.Fatalf("sent %q; want the search result", texts)
		}
		keys, err := st.ListAPIKeys(ctx, studio.ID)
		if err != nil || len(keys) != 1 || keys[0].Name != KeyName || keys[0].RevokedAt != nil {
			t.Fatalf("keys after the first turn: %+v, %v", keys, err)
		}
		as := agentSettingsOf(t, st, studio.ID)
		if as.KeyID != keys[0].ID || !strings.HasPrefix(as.APIKey, "v1:") || strings.Contains(as.APIKey, keys[0].Prefix) {
			t.Fatalf("stored key %+v is not sealed", as)
		}
		// The lane audited the tool call as the agent's.
		h.audit.Flush()
		audit, err := st.ListAudit(ctx, studio.ID, store.Page{Limit: 10})
		// Newest first: the search, then the key's minting.
		if err != nil || len(audit.Items) != 2 || audit.Items[0].Source != domain.SourceAgent || audit.Items[0].CredentialID != keys[0].ID ||
			audit.Items[1].Route != "assistant key mint" || audit.Items[1].ResourceID != keys[0].ID {
			t.Fatalf("audit %+v, %v; want the minting and the search audited as the agent's, with its key", audit.Items, err)
		}

		// The coach revokes the key in the studio's key list.
		if err := st.RevokeAPIKey(ctx, keys[0].ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		h.send("972505556666", "c", "find Yael again")
		h.waitIdle()
		texts = h.sms.Texts()
		if len(texts) != 2 || texts[1] != msgRevoked {
			t.Fatalf("sent %q; want the revoked notice", texts)
		}
		as = agentSettingsOf(t, st, studio.ID)
		if as.RevokedAt == nil || as.APIKey != "" || as.KeyID != "" {
			t.Fatalf("settings after revocation: %+v", as)
		}
		calls := len(h.llm.Requests())

		// Disconnected: no model, no new key, until the exact command.
		for _, text := range []string{"hello?", "חבר מחדש בבקשה"} {
			h.send("972505556666", "c", text)
			h.waitIdle()
		}
		texts = h.sms.Texts()
		if len(texts) != 4 || texts[2] != msgDisconnected || texts[3] != msgDisconnected {
			t.Fatalf("sent %q; want the disconnected notice twice", texts)
		}
		if n := len(h.llm.Requests()); n != calls {
			t.Fatalf("the model was called while disconnected")
		}
		h.send("972505556666", "c", ReconnectCommand)
		h.waitIdle()
		if texts = h.sms.Texts(); len(texts) != 5 || texts[4] != msgReconnected {
			t.Fatalf("sent %q; want the reconnected reply", texts)
		}
		keys, _ = st.ListAPIKeys(ctx, studio.ID)
		live := 0
		for _, k := range keys {
			if k.RevokedAt == nil {
				live++
			}
		}
		if len(keys) != 2 || live != 1 {
			t.Fatalf("keys after reconnect: %+v; want the revoked one and a fresh one", keys)
		}
		h.send("972505556666", "c", "find Yael once more")
		h.waitIdle()
		if texts = h.sms.Texts(); len(texts) != 6 || !strings.Contains(texts[5], trainee.ID) {
			t.Fatalf("sent %q; want tools working again", texts)
		}
	})
}

func TestWelcomeMenu(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studioWithCoach(t, st, "Studio", "Roni", "0506667777", time.Now())
		studioWithCoach(t, st, "Studio 2", "Tal", "0506668888", time.Now())
		w := welcome("Roni", "Studio")

		h.send("972506667777", "c", "שלום!")
		h.waitIdle()
		if got := h.sms.Texts(); !slices.Equal(got, []string{w}) || len(h.llm.Requests()) != 0 {
			t.Fatalf("greeting: sent %q, %d model calls; want only the welcome", got, len(h.llm.Requests()))
		}
		h.send("972506667777", "c", "what is new?")
		h.waitIdle()
		if got := h.sms.Texts(); len(got) != 2 || got[1] != "תשובה" {
			t.Fatalf("second message: sent %q; want an answer without a second welcome", got)
		}
		h.send("972506667777", "c", "Menu")
		h.waitIdle()
		if got := h.sms.Texts(); len(got) != 3 || got[2] != w || len(h.llm.Requests()) != 1 {
			t.Fatalf("menu word: sent %q; want the welcome and no model call", got)
		}
		// A real first question gets the welcome and then its answer.
		h.send("972506668888", "c2", "how many trainees do I have?")
		h.waitIdle()
		got := h.sms.Texts()
		if len(got) != 5 || got[3] != welcome("Tal", "Studio 2") || got[4] != "תשובה" {
			t.Fatalf("first question: sent %q", got)
		}
	})
}

func TestLongReplyIsChunked(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studioWithCoach(t, st, "Studio", "Lior", "0507778888", time.Now())
		seedHistory(t, h, "+972507778888")
		var paras []string
		for i := 0; utf8.RuneCountInString(strings.Join(paras, "\n\n")) < 9000; i++ {
			paras = append(paras, fmt.Sprintf("פסקה %03d", i)+strings.Repeat(" מילה", 40))
		}
		long := strings.TrimSpace(string([]rune(strings.Join(paras, "\n\n"))[:9000]))
		h.setScript(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text(long) })
		h.send("972507778888", "c", "tell me everything")
		h.waitIdle()
		sent := h.sms.Texts()
		if len(sent) < 3 {
			t.Fatalf("sent %d chunks for 9000 characters; want at least 3", len(sent))
		}
		for i, c := range sent {
			if n := utf8.RuneCountInString(c); n > chunkMaxRunes {
				t.Fatalf("chunk %d has %d characters", i, n)
			}
		}
		// Blank lines and the spaces at cuts aside, the chunks are the reply.
		if got := strings.Join(sent, " "); !slices.Equal(strings.Fields(got), strings.Fields(long)) {
			t.Fatal("the chunks do not add up to the reply")
		}
		if !strings.HasPrefix(sent[1], "פסקה") {
			t.Fatalf("chunk 1 starts %.20q; want a paragraph's start (split on blank lines)", sent[1])
		}
	})
}

func TestToolErrorGoesBackToTheModel(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st, func(o *Options) { o.LLM.WorkspaceID = "wrkspc_1" })
		studioWithCoach(t, st, "Studio", "Omer", "0508889999", time.Now())
		seedHistory(t, h, "+972508889999")
		h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
			switch n {
			case 0:
				return fakes.CallTool("get_trainee", map[string]any{"traineeId": "trn_doesnotexist0000000000000"})
			case 1:
				return fakes.CallTool("no_such_tool", map[string]any{})
			default:
				return fakes.Text("recovered")
			}
		})
		h.send("972508889999", "c", "show trainee")
		h.waitIdle()
		reqs := h.llm.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d model calls; want 3", len(reqs))
		}
		res := reqs[1].ToolResults()
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].ResultText(), "search_trainees") {
			t.Fatalf("tool result %+v; want the lane's not-found sentence as an error", res)
		}
		if res := reqs[2].ToolResults(); len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].ResultText(), "no_such_tool") || !strings.Contains(res[0].ResultText(), "search_trainees") {
			t.Fatalf("unknown tool result %+v", res)
		}
		if got := h.sms.Texts(); !slices.Equal(got, []string{"recovered"}) {
			t.Fatalf("sent %q", got)
		}
		// The request carried what the configuration says.
		r := reqs[0]
		if r.Model != "claude-test" || r.MaxTokens != maxOutputTokens || r.Header.Get("Anthropic-Workspace-Id") != "wrkspc_1" || r.APIKey() != "test-anthropic-key" {
			t.Fatalf("model %q max_tokens %d workspace %q", r.Model, r.MaxTokens, r.Header.Get("Anthropic-Workspace-Id"))
		}
		var names []string
		for _, tl := range r.Tools {
			names = append(names, tl.Name)
		}
		var want []string
		for _, tl := range tools.AgentSubset() {
			want = append(want, tl.Name)
		}
		if !slices.Equal(names, want) {
			t.Fatalf("tools offered %v; want the agent subset %v", names, want)
		}
		var schema map[string]any
		if err := json.Unmarshal(r.Tools[0].InputSchema, &schema); err != nil || schema["type"] != "object" || schema["properties"] == nil {
			t.Fatalf("input schema %s", r.Tools[0].InputSchema)
		}
		sys := r.SystemText()
		for _, want := range []string{"Omer", "Studio", "2026", "ענה בעברית", "create_task", "אל תמציא", "אל תחשוף"} {
			if !strings.Contains(sys, want) {
				t.Fatalf("system prompt lacks %q:\n%s", want, sys)
			}
		}
	})
}

func TestModelLoopStopsAtEightSteps(t *testing.T) {
	h := newHarness(t, storetestSQLite(t))
	studioWithCoach(t, h.st, "Studio", "Bar", "0501010101", time.Now())
	seedHistory(t, h, "+972501010101")
	h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
		return fakes.Reply{Text: fmt.Sprintf("step %d", n), ToolUses: []fakes.ToolUse{{Name: "list_tags", Input: map[string]any{}}}}
	})
	h.send("972501010101", "c", "loop forever")
	h.waitIdle()
	if n := len(h.llm.Requests()); n != maxModelSteps {
		t.Fatalf("%d model calls; want %d", n, maxModelSteps)
	}
	if got := h.sms.Texts(); !slices.Equal(got, []string{"step 7"}) {
		t.Fatalf("sent %q; want the last step's text", got)
	}
}

func TestModelFailuresSendTheFailureMessage(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Studio", "Eli", "0501212121", time.Now())
		seedHistory(t, h, "+972501212121")
		h.setScript(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Reply{Status: 500} })
		h.send("972501212121", "c", "q1")
		h.waitIdle()
		h.setScript(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("   ") })
		h.send("972501212121", "c", "q2")
		h.waitIdle()
		if got := h.sms.Texts(); !slices.Equal(got, []string{msgFailure, msgFailure}) {
			t.Fatalf("sent %q; want the failure message twice", got)
		}
		day := h.clock.Now().UTC().Format(time.DateOnly)
		if count, err := st.Agent().CapCount(context.Background(), "+972501212121", studio.ID, day); err != nil || count != 2 {
			t.Fatalf("cap count %d, %v; failed turns count as handled", count, err)
		}
		var jobsFailed int
		if err := st.DB().QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'agent_reply' AND attempt > 1`).Scan(&jobsFailed); err != nil || jobsFailed != 0 {
			t.Fatalf("%d jobs retried; a model failure is answered, not retried", jobsFailed)
		}
	})
}

func TestNoAnthropicKeyMeansNotConfigured(t *testing.T) {
	h := newHarness(t, storetestSQLite(t), func(o *Options) { o.LLM.APIKey = "" })
	studioWithCoach(t, h.st, "Studio", "Ziv", "0501313131", time.Now())
	seedHistory(t, h, "+972501313131")
	h.send("972501313131", "c", "q")
	h.waitIdle()
	if got := h.sms.Texts(); !slices.Equal(got, []string{msgFailure}) || len(h.llm.Requests()) != 0 {
		t.Fatalf("sent %q; want the failure message without a model call", got)
	}
	if _, err := h.agent.model.run(context.Background(), "", nil, "x", nil); err == nil || err.Error() != "agent AI is not configured" {
		t.Fatalf("err = %v", err)
	}
}

func TestStalePendingMessagesAreDropped(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st, func(o *Options) { o.Debounce = 800 * time.Millisecond })
		studioWithCoach(t, st, "Studio", "Maya", "0501414141", time.Now())
		seedHistory(t, h, "+972501414141")
		h.send("972501414141", "c", "old question")
		h.clock.Advance(61 * time.Minute) // the process was down, say
		h.waitIdle()
		if got := h.sms.Texts(); len(got) != 0 {
			t.Fatalf("sent %q; a message over an hour old is never answered", got)
		}
		// Dropped: not pending any more, and no turn was made of it.
		if seqs, err := st.Agent().PendingSeqs(context.Background(), "+972501414141"); err != nil || len(seqs) != 0 {
			t.Fatalf("pending %v, %v", seqs, err)
		}
		if turn, err := st.Agent().OpenTurn(context.Background(), "+972501414141"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("turn %+v, %v; want none", turn, err)
		}
	})
}

func TestPilotRecheckAtTurnTime(t *testing.T) {
	// The job is due in an hour; the test runs it by hand after the
	// allowlist shrank.
	h := newHarness(t, storetestSQLite(t), func(o *Options) { o.PilotPhones = []string{"0501515151"}; o.Debounce = time.Hour })
	studioWithCoach(t, h.st, "Studio", "Shir", "0501515151", time.Now())
	h.send("972501515151", "c", "hi there, a question")
	h.agent.pilot = map[string]bool{"+972500000000": true}
	seqs, err := h.st.Agent().PendingSeqs(context.Background(), "+972501515151")
	if err != nil || len(seqs) != 1 {
		t.Fatalf("pending %v, %v", seqs, err)
	}
	if err := h.agent.reply(context.Background(), "+972501515151", seqs[0], "test"); err != nil {
		t.Fatal(err)
	}
	if got := h.sms.Texts(); len(got) != 0 {
		t.Fatalf("sent %q; a phone removed from the pilot gets nothing", got)
	}
}

func TestGatewayFailureResumesWithoutResending(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studioWithCoach(t, st, "Studio", "Yoni", "0501616161", time.Now())
		seedHistory(t, h, "+972501616161")
		h.setScript(func(int, fakes.MessagesRequest) fakes.Reply {
			return fakes.Text("part one\n\n" + strings.Repeat("x", 3495) + "\n\npart three")
		})
		var failed atomic.Bool
		h.sms.Fail = func(n int, s fakes.Sent) int {
			if strings.HasPrefix(s.Text, "x") && failed.CompareAndSwap(false, true) {
				return 503 // the second chunk fails once
			}
			return 0
		}
		h.send("972501616161", "c", "long one")
		h.waitIdle()
		got := h.sms.Texts()
		if len(got) != 3 || got[0] != "part one" || got[1] != strings.Repeat("x", 3495) || got[2] != "part three" {
			t.Fatalf("sent %d chunks %.40q; want each chunk exactly once", len(got), got)
		}
		if n := len(h.llm.Requests()); n != 1 {
			t.Fatalf("model called %d times; the retry only resends", n)
		}
	})
}

func TestStudioKeyEdges(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Edge Studio", "Dror", "0501818181", time.Now())
		seedHistory(t, h, "+972501818181")
		if err := st.UpdateStudioSettings(ctx, studio.ID, json.RawMessage(`{"theme":"dark"}`)); err != nil {
			t.Fatal(err)
		}
		// The studio is at its plan's key limit: the agent says so and mints nothing.
		limit := studio.Limits().MaxAPIKeys
		for i := 0; i < limit; i++ {
			k := domain.APIKey{ID: fmt.Sprintf("key_edge%d", i), StudioID: studio.ID, Name: "app", Prefix: fmt.Sprintf("pf_live_edge%02d", i), Hash: []byte(fmt.Sprintf("hash-%s-%d", studio.ID, i)), CreatedAt: time.Now()}
			if err := st.CreateAPIKey(ctx, &k); err != nil {
				t.Fatal(err)
			}
		}
		h.send("972501818181", "c", "q1")
		h.waitIdle()
		if got := h.sms.Texts(); !slices.Equal(got, []string{msgKeyLimit}) || len(h.llm.Requests()) != 0 {
			t.Fatalf("sent %q; want the key-limit sentence and no model call", got)
		}
		// A key freed: the agent connects, and keeps the studio's other settings.
		if err := st.RevokeAPIKey(ctx, "key_edge0", time.Now()); err != nil {
			t.Fatal(err)
		}
		h.send("972501818181", "c", "q2")
		h.waitIdle()
		s, _ := st.StudioByID(ctx, studio.ID)
		all, as, err := readAgentSettings(s.Settings)
		if err != nil || string(all["theme"]) != `"dark"` || as.APIKey == "" {
			t.Fatalf("settings %s, %v", s.Settings, err)
		}
		// The reconnect command while connected changes nothing.
		h.send("972501818181", "c", ReconnectCommand)
		h.waitIdle()
		if got := h.sms.Texts(); got[len(got)-1] != msgAlreadyConnected {
			t.Fatalf("sent %q; want the already-connected reply", got)
		}
		if again := agentSettingsOf(t, st, studio.ID); again.KeyID != as.KeyID {
			t.Fatal("the reconnect command re-minted a connected studio's key")
		}
		// Sealed under another PERFORM_SECRET_KEY: the old key is revoked, a fresh one minted.
		other, err := New(Options{Store: st, Lane: h.agent.lane, SecretKey: bytes.Repeat([]byte{1}, 32), Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		coach, err := resolve(other, "+972501818181")
		if err != nil {
			t.Fatal(err)
		}
		key, _, stop, err := other.studioKey(ctx, &turn{ID: "amg_x", Text: "q"}, coach.StudioID, true)
		if err != nil || stop || key == "" {
			t.Fatalf("studioKey under a new secret: %q %v %v", key, stop, err)
		}
		if now := agentSettingsOf(t, st, studio.ID); now.KeyID == as.KeyID {
			t.Fatal("no fresh key minted under the new secret")
		}
		old, err := st.FindAPIKey(ctx, studio.ID, as.KeyID)
		if err != nil || old.RevokedAt == nil {
			t.Fatalf("the unreadable key %+v was left live (%v)", old, err)
		}
	})
}

func TestRefusedChunkIsGivenUp(t *testing.T) {
	h := newHarness(t, storetestSQLite(t))
	studioWithCoach(t, h.st, "Studio", "Hila", "0501919191", time.Now())
	seedHistory(t, h, "+972501919191")
	h.setScript(func(int, fakes.MessagesRequest) fakes.Reply {
		return fakes.Text(strings.Repeat("a", 3000) + "\n\n" + strings.Repeat("b", 3000))
	})
	h.sms.Fail = func(n int, s fakes.Sent) int {
		if strings.HasPrefix(s.Text, "a") {
			return http.StatusBadRequest // e.g. a closed conversation
		}
		return 0
	}
	h.send("972501919191", "c", "q")
	h.waitIdle()
	if got := h.sms.Texts(); len(got) != 1 || !strings.HasPrefix(got[0], "b") {
		t.Fatalf("sent %.10q; want the second chunk after the first was refused", got)
	}
	var retried int
	if turn, err := h.st.Agent().OpenTurn(context.Background(), "+972501919191"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("turn %+v open, %v", turn, err)
	}
	if err := h.st.DB().QueryRow(`SELECT count(*) FROM river_job WHERE attempt > 1`).Scan(&retried); err != nil || retried != 0 {
		t.Fatalf("%d jobs retried, %v; a permanent refusal is not retried", retried, err)
	}
}

func TestHistoryKeepsLast24EntriesOf48Hours(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Studio", "Adi", "0502020202", time.Now())
		const phone = "+972502020202"
		ag := st.Agent()
		ctx := context.Background()
		now := h.clock.Now()
		// Two entries from three days ago, then 30 recent ones.
		ancient := []store.AgentHistoryEntry{{Role: "user", Text: "ancient"}, {Role: "user", Text: "ancient"}}
		if err := ag.AppendHistory(ctx, phone, studio.ID, ancient, now.Add(-72*time.Hour), 1000); err != nil {
			t.Fatal(err)
		}
		var recent []store.AgentHistoryEntry
		for i := 0; i < 30; i++ {
			recent = append(recent, store.AgentHistoryEntry{Role: []string{"user", "assistant"}[i%2], Text: fmt.Sprintf("e%02d", i)})
		}
		if err := ag.AppendHistory(ctx, phone, studio.ID, recent, now.Add(-time.Hour), 1000); err != nil {
			t.Fatal(err)
		}
		hist, err := h.agent.loadHistory(context.Background(), phone, studio.ID)
		if err != nil || len(hist) != historyEntries || hist[0].Text != "e06" || hist[23].Text != "e29" {
			t.Fatalf("history: %d entries from %v; want e06..e29", len(hist), hist)
		}
		h.send("972502020202", "c", "q")
		h.waitIdle()
		reqs := h.llm.Requests()
		// 24 entries starting with a user one, then the new text merged in.
		if len(reqs) != 1 || reqs[0].Messages[0].Content[0].Text != "e06" {
			t.Fatalf("model saw %+v", reqs)
		}
		if all, err := ag.History(ctx, phone, studio.ID, time.Time{}, 1000); err != nil || len(all) != historyEntries {
			t.Fatalf("%d entries kept, %v; want %d", len(all), err, historyEntries)
		}
		hist, _ = h.agent.loadHistory(context.Background(), phone, studio.ID)
		if hist[22].Text != "q" || hist[23].Text != "תשובה" {
			t.Fatalf("newest entries %v", hist[22:])
		}
	})
}
