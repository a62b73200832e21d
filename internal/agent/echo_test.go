package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/store"
)

// A replayed webhook (SmartSend delivering a message again) repeats the
// weigh-in, which the lane answers from the first: it is stored once, and
// its ✅ echo, sent with the first reply, is not sent again.
func TestAReplayedWeighInIsNotEchoedAgain(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st)
		e.turnOn(true)
		e.say(danaPhone, "היי")
		e.say(danaPhone, "כן")
		e.setScript(weighInScript)
		body, _ := json.Marshal(Inbound{Text: "שקילה 70.4", Phone: danaPhone, ConversationID: "conv-" + danaPhone, SenderName: "Dana"})
		replies := make([]string, 2)
		for i := range replies {
			before := len(e.sms.Sent())
			if r := e.post(testToken, string(body)); r.Status != 200 || r.accepted() != 1 {
				t.Fatalf("delivery %d: %d %v", i+1, r.Status, r.Body)
			}
			e.waitIdle()
			var texts []string
			for _, m := range e.sms.Sent()[before:] {
				texts = append(texts, m.Text)
			}
			replies[i] = joined(texts)
		}
		if n := strings.Count(replies[0], "✅ נרשמה שקילה: 70.4"); n != 1 {
			t.Fatalf("the first delivery was answered %q; want one echo", replies[0])
		}
		if strings.Contains(replies[1], "✅") || replies[1] == "" {
			t.Fatalf("the replayed delivery was answered %q; want the reply without the echo", replies[1])
		}
		var weights int
		if err := st.DB().QueryRow(`SELECT count(*) FROM weights`).Scan(&weights); err != nil || weights != 1 {
			t.Fatalf("%d weigh-ins stored (%v); want 1", weights, err)
		}
	})
}
