//go:build crash

package crashtest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/testkit"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

const (
	webhookToken = "crash-hook"
	smartSendKey = "crash-ss"
)

var secretKey = hex.EncodeToString(bytes.Repeat([]byte{9}, 32))

// instance is one running `perform serve`.
type instance struct{ *testkit.Served }

// start runs perform serve on databaseURL with the fakes, and waits until it
// serves. name tells instances apart in the fake model's request paths.
func start(t *testing.T, databaseURL, name string, llm *fakes.Anthropic, sms *fakes.SmartSend) *instance {
	t.Helper()
	return &instance{testkit.Serve(t, name, []string{
		"PERFORM_DATABASE_URL=" + databaseURL,
		"PERFORM_SECRET_KEY=" + secretKey,
		"SMARTSEND_WEBHOOK_SECRET=" + webhookToken,
		"SMARTSEND_API_URL=" + sms.URL,
		"AGENT_SMARTSEND_API_KEY=" + smartSendKey,
		"ANTHROPIC_API_KEY=crash-anthropic",
		"ANTHROPIC_BASE_URL=" + llm.URL + "/" + name,
		// A burst is the messages within the debounce of each other. The
		// reply job runs the moment it ends, so under a loaded -race run a
		// short debounce split the tests' bursts of three (sent one after
		// another over HTTP) into two turns; 2 s keeps each burst whole.
		"AGENT_DEBOUNCE_MS=2000",
	}, nil)}
}

func (i *instance) send(t *testing.T, phone, conv, text string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"text": text, "phone": phone, "conversationId": conv, "senderName": "Coach"})
	resp, err := http.Post(i.URL+"/v1/agent/webhook?token="+webhookToken, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(raw), `"accepted":1`) {
		t.Fatalf("webhook: %d %s", resp.StatusCode, raw)
	}
}

// seedCoaches creates a studio with one coach per phone.
func seedCoaches(t *testing.T, st store.Store, phones ...string) {
	t.Helper()
	ctx := context.Background()
	s := domain.Studio{Name: "Crash Studio", Slug: fmt.Sprintf("crash-%d", time.Now().UnixNano())}
	if err := st.CreateStudio(ctx, &s); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, p := range phones {
		c := domain.Coach{Name: fmt.Sprintf("Coach %d", i), Phone: &p, Active: true, LastActiveAt: &now}
		if err := st.Studio(s.ID).CreateCoach(ctx, &c); err != nil {
			t.Fatal(err)
		}
	}
	// A past exchange per phone keeps the welcome menu out of these turns.
	past := []store.AgentHistoryEntry{{Role: "user", Text: "earlier"}, {Role: "assistant", Text: "earlier"}}
	for _, p := range phones {
		if err := st.Agent().AppendHistory(ctx, "+972"+strings.TrimPrefix(p, "0"), s.ID, past, now, 24); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpState logs the agent's tables and the reply jobs, for a failure's story.
func dumpState(t *testing.T, st store.Store) {
	t.Helper()
	for _, q := range []string{
		`SELECT id, phone, state, counted, coalesce(outcome, '') FROM agent_turns`,
		`SELECT seq, phone, state, coalesce(turn_id, '') FROM agent_messages`,
		`SELECT turn_id, idx, coalesce(sent_at, 0) FROM agent_chunks`,
		`SELECT name, owner, expires_at FROM agent_leases`,
		`SELECT id, state, attempt, coalesce(cast(errors AS text), '') FROM river_job WHERE kind = 'agent_reply'`,
	} {
		rows, err := st.DB().Query(q)
		if err != nil {
			t.Logf("%s: %v", q, err)
			continue
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			_ = rows.Scan(ptrs...)
			t.Logf("%s: %v", strings.Fields(q)[len(strings.Fields(q))-1], vals)
		}
		rows.Close()
	}
}

// waitFor polls cond until it holds; on a timeout it logs st's agent
// tables before failing.
func waitFor(t *testing.T, st store.Store, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			dumpState(t, st)
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitIdle(t *testing.T, st store.Store, timeout time.Duration) {
	t.Helper()
	q := `SELECT count(*) FROM river_job WHERE kind = 'agent_reply' AND state NOT IN ('completed', 'discarded', 'cancelled')`
	waitFor(t, st, timeout, "every reply job to finish", func() bool {
		var n int
		if err := st.DB().QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}

// threeChunks is a reply that splits into three WhatsApp messages.
func threeChunks(tag string) string {
	return tag + " A " + strings.Repeat("a", 3470) + "\n\n" + tag + " B " + strings.Repeat("b", 3470) + "\n\n" + tag + " C"
}

func countTexts(sent []fakes.Sent, conv string) map[string]int {
	out := map[string]int{}
	for _, s := range sent {
		if s.ConversationID == conv {
			out[s.Text]++
		}
	}
	return out
}

// crashSQLite is a fresh SQLite file for a crash test, and its path (the
// database URL a server is started on); crashPostgres a fresh schema and
// its URL, skipping without PostgreSQL. Both skip a -short run: a crash
// test waits for River to rescue the killed instance's jobs.
func crashSQLite(t *testing.T) (store.Store, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("the crash test waits for River to rescue killed jobs (about a minute)")
	}
	dbPath := filepath.Join(t.TempDir(), "crash.db")
	st, err := store.Open(context.Background(), dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dbPath
}

func crashPostgres(t *testing.T) (store.Store, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("the crash test waits for River to rescue killed jobs (about a minute)")
	}
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skip(storetest.PostgresEnv + " is not set")
	}
	return storetest.OpenPostgresSchema(t, base)
}

func TestCrashMidTurn(t *testing.T) {
	t.Parallel()
	st, url := crashSQLite(t)
	runCrashScenario(t, st, url)
}

func TestCrashMidTurnPostgres(t *testing.T) {
	t.Parallel()
	st, url := crashPostgres(t)
	runCrashScenario(t, st, url)
}

// runCrashScenario kills the server twice: once while the model is thinking
// (nothing sent yet), once while the second of three chunks is in flight.
func runCrashScenario(t *testing.T, st store.Store, databaseURL string) {
	seedCoaches(t, st, "0521000001", "0521000002")

	inModel := make(chan struct{}, 1)
	releaseModel := make(chan struct{})
	var modelCalls sync.Map // phone tag -> count
	llm := fakes.NewAnthropic(func(n int, req fakes.MessagesRequest) fakes.Reply {
		text := req.LastUserText()
		v, _ := modelCalls.LoadOrStore(text, new(int))
		*(v.(*int))++
		if text == "first question" && *(v.(*int)) == 1 {
			inModel <- struct{}{}
			<-releaseModel // the process is killed while we wait
		}
		return fakes.Text(threeChunks(text))
	})
	defer llm.Close()
	sms := fakes.NewSmartSend()
	defer sms.Close()
	inSecondChunk := make(chan struct{}, 1)
	releaseChunk := make(chan struct{})
	var held sync.Once
	sms.Fail = func(n int, s fakes.Sent) int {
		if strings.HasPrefix(s.Text, "second question B") {
			first := false
			held.Do(func() { first = true })
			if first {
				inSecondChunk <- struct{}{}
				<-releaseChunk // killed while SmartSend has not answered
				return http.StatusBadGateway
			}
		}
		return 0
	}

	// 1. Killed while the model is thinking.
	a := start(t, databaseURL, "a", llm, sms)
	a.send(t, "972521000001", "conv-1", "first question")
	select {
	case <-inModel:
	case <-time.After(30 * time.Second):
		t.Fatal("the turn never reached the model")
	}
	a.Kill()
	killed := time.Now()
	close(releaseModel)
	b := start(t, databaseURL, "b", llm, sms)
	waitFor(t, st, 120*time.Second, "the first question's three chunks", func() bool {
		return len(countTexts(sms.Sent(), "conv-1")) == 3
	})
	t.Logf("killed while the model thought: answered %s after the kill", time.Since(killed).Round(100*time.Millisecond))

	// 2. Killed while the second chunk is in flight.
	b.send(t, "972521000002", "conv-2", "second question")
	select {
	case <-inSecondChunk:
	case <-time.After(30 * time.Second):
		t.Fatal("the second turn never reached its second chunk")
	}
	b.Kill()
	killed = time.Now()
	close(releaseChunk)
	c := start(t, databaseURL, "c", llm, sms)
	waitFor(t, st, 120*time.Second, "the second question's three chunks", func() bool {
		return len(countTexts(sms.Sent(), "conv-2")) == 3
	})
	t.Logf("killed with a chunk in flight: finished sending %s after the kill", time.Since(killed).Round(100*time.Millisecond))
	waitIdle(t, st, 200*time.Second)
	_ = c

	for conv, tag := range map[string]string{"conv-1": "first question", "conv-2": "second question"} {
		counts := countTexts(sms.Sent(), conv)
		for _, part := range []string{"A", "B", "C"} {
			for text, n := range counts {
				if strings.HasPrefix(text, tag+" "+part) && n != 1 {
					t.Errorf("%s chunk %s sent %d times; want once", conv, part, n)
				}
			}
		}
		if len(counts) != 3 {
			t.Errorf("%s: %d distinct chunks; want 3", conv, len(counts))
		}
	}
	v, _ := modelCalls.Load("second question")
	if n := *(v.(*int)); n != 1 {
		t.Errorf("the second question reached the model %d times; its reply was decided before the crash", n)
	}
	var open int
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_turns WHERE state <> 'done'`).Scan(&open); err != nil || open != 0 {
		t.Errorf("%d turns left open, %v", open, err)
	}
}

// TestTwoInstancesOnePostgres runs two servers on one database, spreads
// bursts from many phones over both webhooks, kills one instance in the
// middle of a turn, and checks every burst was answered exactly once.
func TestTwoInstancesOnePostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for River to rescue the killed instance's job")
	}
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skip(storetest.PostgresEnv + " is not set")
	}
	st, url := storetest.OpenPostgresSchema(t, base)
	const phones = 12
	var list []string
	for i := 0; i < phones; i++ {
		list = append(list, fmt.Sprintf("05230000%02d", i))
	}
	seedCoaches(t, st, list...)

	var killOnce sync.Once
	inModelX := make(chan struct{})
	releaseX := make(chan struct{})
	llm := fakes.NewAnthropic(func(n int, req fakes.MessagesRequest) fakes.Reply {
		if strings.HasPrefix(req.Path, "/x/") {
			hold := false
			killOnce.Do(func() { hold = true })
			if hold {
				close(inModelX)
				<-releaseX
			}
		}
		return fakes.Text("reply to: " + req.LastUserText())
	})
	defer llm.Close()
	sms := fakes.NewSmartSend()
	defer sms.Close()

	x := start(t, url, "x", llm, sms)
	y := start(t, url, "y", llm, sms)
	var wg sync.WaitGroup
	for i, p := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e164 := "972" + strings.TrimPrefix(p, "0")
			for j := 0; j < 3; j++ {
				inst := x
				if (i+j)%2 == 1 {
					inst = y
				}
				inst.send(t, e164, fmt.Sprintf("conv-%d", i), fmt.Sprintf("p%d m%d", i, j))
			}
		}()
	}
	wg.Wait()
	select {
	case <-inModelX:
		x.Kill()
	case <-time.After(60 * time.Second):
		t.Log("instance x ran no turn; nothing to kill")
	}
	close(releaseX)
	waitFor(t, st, 150*time.Second, "a reply to every burst", func() bool {
		seen := map[string]bool{}
		for _, s := range sms.Sent() {
			seen[s.ConversationID] = true
		}
		return len(seen) == phones
	})
	waitIdle(t, st, 200*time.Second)

	sent := sms.Sent()
	perConv := map[string][]string{}
	for _, s := range sent {
		perConv[s.ConversationID] = append(perConv[s.ConversationID], s.Text)
	}
	for i := 0; i < phones; i++ {
		conv := fmt.Sprintf("conv-%d", i)
		got := perConv[conv]
		if len(got) != 1 {
			t.Errorf("%s got %d replies %q; want exactly one", conv, len(got), got)
			continue
		}
		// All three messages reached the one reply (bursts may split only
		// if a message's job ran before the next arrived; then each reply
		// still answers distinct messages — never the same one twice).
		if !strings.Contains(got[0], fmt.Sprintf("p%d m2", i)) {
			t.Errorf("%s reply %q does not answer the last message", conv, got[0])
		}
	}
	var answered, total int
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_messages WHERE state = 'claimed'`).Scan(&answered); err != nil {
		t.Fatal(err)
	}
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_messages`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if answered != total || total != 3*phones {
		t.Errorf("%d of %d messages claimed by a turn; want all %d", answered, total, 3*phones)
	}
}
