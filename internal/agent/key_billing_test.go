package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// A studio whose assistant's key was minted before the billing scope adds
// billing to it as to any key: it is in GET /keys under the assistant's
// name, and PATCH /keys/{id} gives it billing. The coach's next morning
// digest then names who owes, with no new key minted.
func TestAssistantKeyGainsBillingForTheDigest(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		h := newHarness(t, st)
		studio, coach := studioWithCoach(t, st, "Owes Studio", "Dana", "0501000031", time.Now())
		optIn(t, st, studio.ID, coach.ID, true, 12)

		// The studio's own app, with an admin key: a package sold to a
		// trainee of the coach 5 days ago and not paid.
		secret := auth.NewKey()
		if err := st.CreateAPIKey(ctx, &domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studio.ID, Name: "app", Prefix: auth.Display(secret), Hash: auth.Hash(secret)}); err != nil {
			t.Fatal(err)
		}
		app := laneclient.New("http://perform.internal", laneclient.HandlerTransport(areas.Lane(lane.Options{Store: st, Logger: quietLogger()})), domain.SourceAPI)
		do := func(method, path string, body any) json.RawMessage {
			t.Helper()
			raw, err := app.Do(ctx, secret, tools.Request{Method: method, Path: path, Body: body})
			if err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			return raw
		}
		do("POST", "/products", map[string]any{"name": "Five", "price": 500, "kind": "package", "sessions": 5})
		var tr struct{ ID string }
		if err := json.Unmarshal(do("POST", "/trainees", map[string]any{"firstName": "Owen", "lastName": "Levi", "phone": "050-700-0031", "coachIds": []string{coach.ID}}), &tr); err != nil {
			t.Fatal(err)
		}
		do("POST", "/trainees/"+tr.ID+"/subscription", map[string]any{"productId": "Five", "startedOn": time.Now().AddDate(0, 0, -5).Format(time.DateOnly)})

		// The coach writes: the assistant mints its key. Made before billing,
		// it would hold only what the coach tools needed then.
		h.send("972501000031", "conv-owes", "שלום")
		h.waitIdle()
		var keys struct {
			Items []domain.APIKey `json:"items"`
		}
		if err := json.Unmarshal(do("GET", "/keys", nil), &keys); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(keys.Items, func(k domain.APIKey) bool { return k.Name == KeyName })
		if i < 0 {
			t.Fatalf("GET /keys does not list the assistant's key: %+v", keys.Items)
		}
		assistant := keys.Items[i]
		if _, err := st.SetAPIKeyScopes(ctx, studio.ID, assistant.ID, func(domain.APIKey) ([]string, error) {
			return []string{auth.ScopeStudioRead, auth.ScopeStudioWrite}, nil
		}, nil); err != nil {
			t.Fatal(err)
		}

		digest := func() string {
			t.Helper()
			plan, err := h.agent.planDigest(ctx, store.DigestRecord{StudioID: studio.ID, CoachID: coach.ID, Day: digestDay})
			if err != nil || len(plan.Texts) == 0 {
				t.Fatalf("the digest: %+v, %v", plan, err)
			}
			return plan.Texts[0]
		}
		owes := reasonLabels["owes"]
		if got := digest(); strings.Contains(got, owes) || strings.Contains(got, "Owen") {
			t.Fatalf("a digest read with a key without billing names who owes:\n%s", got)
		}
		do("PATCH", "/keys/"+assistant.ID, map[string]any{"add": []string{auth.ScopeBilling}})
		if got := digest(); !strings.Contains(got, "*Owen Levi* – "+owes) {
			t.Fatalf("after the studio added billing to the assistant's key the digest lacks who owes:\n%s", got)
		}
		if after, err := st.ListAPIKeys(ctx, studio.ID); err != nil || len(after) != 2 {
			t.Fatalf("keys after the change: %d, %v; want the app's and the assistant's, no new one", len(after), err)
		}
	})
}
