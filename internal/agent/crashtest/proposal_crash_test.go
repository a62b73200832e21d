//go:build crash

package crashtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// TestCrashAfterConfirmation proposes a weight, confirms it, and kills the
// server with SIGKILL while the confirmed write waits inside the lane (the
// test holds the trainee's row lock, so the write cannot commit). A new
// server resumes the turn and the weight is written exactly once, the
// outcome sent once, and no trainee messaged.
func TestCrashAfterConfirmation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for the killed turn's lease and its Idempotency-Key claim to expire")
	}
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skip(storetest.PostgresEnv + " is not set")
	}
	st, url := storetest.OpenPostgresSchema(t, base)
	ctx := context.Background()
	seedCoaches(t, st, "0521000009")
	var studioID string
	if err := st.DB().QueryRow(`SELECT studio_id FROM coaches WHERE phone_key = '+972521000009'`).Scan(&studioID); err != nil {
		t.Fatal(err)
	}
	tr := domain.Trainee{FirstName: "Dana", LastName: "Levi", Phone: "+972501234567", Status: "active"}
	if err := st.Studio(studioID).CreateTrainee(ctx, &tr); err != nil {
		t.Fatal(err)
	}
	llm := fakes.NewAnthropic(func(_ int, req fakes.MessagesRequest) fakes.Reply {
		if len(req.ToolResults()) > 0 {
			return fakes.Text("proposed")
		}
		return fakes.CallTool("log_weight", map[string]any{"traineeId": tr.ID, "weightKg": 72.4})
	})
	defer llm.Close()
	sms := fakes.NewSmartSend()
	defer sms.Close()

	a := start(t, url, "a", llm, sms)
	a.send(t, "972521000009", "conv-p", "log 72.4 for Dana")
	waitFor(t, st, 60*time.Second, "the proposal", func() bool { return countState(t, st, "pending") == 1 && len(sms.Sent()) == 2 })

	lock, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(`SELECT 1 FROM trainees WHERE id = $1 FOR UPDATE`, tr.ID); err != nil {
		t.Fatal(err)
	}
	a.send(t, "972521000009", "conv-p", "כן")
	waitFor(t, st, 60*time.Second, "the confirmed write to wait on the lock", func() bool {
		var waiting int
		_ = st.DB().QueryRow(`SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&waiting)
		return countState(t, st, "confirmed") == 1 && waiting > 0
	})
	a.Kill()
	_ = lock.Rollback()
	killed := time.Now()

	start(t, url, "b", llm, sms)
	waitFor(t, st, 240*time.Second, "the confirmed proposal to run", func() bool { return countState(t, st, "executed") == 1 })
	t.Logf("the confirmed write ran %s after the kill", time.Since(killed).Round(100*time.Millisecond))
	waitIdle(t, st, 120*time.Second)

	weights, err := st.Studio(studioID).ListWeights(ctx, tr.ID, store.Page{Limit: 10})
	if err != nil || weights.Total != 1 {
		t.Fatalf("%d weights (%v); want exactly 1", weights.Total, err)
	}
	outcomes := 0
	for _, s := range sms.Sent() {
		if strings.HasPrefix(s.Text, "✅") {
			outcomes++
		}
	}
	if outcomes != 1 {
		t.Fatalf("%d outcome messages; want 1: %q", outcomes, sms.Texts())
	}
	if n, err := st.Studio(studioID).ListNotifications(ctx, store.Page{Limit: 10}); err != nil || n.Total != 0 {
		t.Fatalf("the outbox has %d notifications (%v)", n.Total, err)
	}
}

func countState(t *testing.T, st store.Store, state string) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_proposals WHERE state = $1`, state).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
