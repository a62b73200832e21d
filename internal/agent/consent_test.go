package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/store"
)

// Consent is the record's and the phone's: a trainee agrees from her
// phone, the studio moves her record to another number, and the new
// number is asked before anything of hers is read or written. Her yes
// from the new number holds there; the old number's yes no longer does.
func TestConsentBelongsToThePhoneItWasGivenFrom(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st)
		e.turnOn(true)
		e.setScript(weighInScript)
		e.say(danaPhone, "היי")
		if got := joined(e.say(danaPhone, "כן")); got != msgTraineeWelcome {
			t.Fatalf("consent: %q", got)
		}
		e.say(danaPhone, "שקילה 70")
		calls := len(e.llm.Requests())
		if calls == 0 {
			t.Fatal("after her yes the model was never asked")
		}

		// The studio changes her phone.
		const newPhone = "972508888888"
		ctx := context.Background()
		dana, err := st.Studio(e.studio.ID).GetTrainee(ctx, e.dana.ID)
		if err != nil {
			t.Fatal(err)
		}
		dana.Phone = "+" + newPhone
		if err := st.Studio(e.studio.ID).UpdateTrainee(ctx, &dana); err != nil {
			t.Fatal(err)
		}
		got := joined(e.say(newPhone, "שקילה 71"))
		if !strings.Contains(got, `ענו "כן"`) {
			t.Fatalf("the new phone got %q, want the consent question", got)
		}
		if n := len(e.llm.Requests()); n != calls {
			t.Fatalf("the new phone's message reached the model (%d calls) before it agreed", n-calls)
		}
		if got := joined(e.say(newPhone, "כן")); got != msgTraineeWelcome {
			t.Fatalf("consent from the new phone: %q", got)
		}
		if got := joined(e.say(newPhone, "שקילה 71")); !strings.Contains(got, "✅ נרשמה שקילה") {
			t.Fatalf("after her yes the new phone got %q", got)
		}

		// Moved back, the old number asks again: the yes is the newest phone's.
		dana.Phone = "+" + danaPhone
		if err := st.Studio(e.studio.ID).UpdateTrainee(ctx, &dana); err != nil {
			t.Fatal(err)
		}
		calls = len(e.llm.Requests())
		if got := joined(e.say(danaPhone, "שקילה 72")); !strings.Contains(got, `ענו "כן"`) || len(e.llm.Requests()) != calls {
			t.Fatalf("back on the old phone she got %q (%d model calls), want the consent question", got, len(e.llm.Requests())-calls)
		}
	})
}
