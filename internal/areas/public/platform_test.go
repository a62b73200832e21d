package public_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A platform key is made through POST /keys with kind platform, is listed
// with its kind, reads the studio's public offer and nothing else; a
// studio key does not read the platform's route.
func TestPlatformKeyReadsOnlyThePublicOffer(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("plat")
		other := e.Seed("plat-other")

		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", "/keys", map[string]any{"name": "Agent", "kind": "platform", "scopes": []string{"studio:read"}}))
		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", "/keys", map[string]any{"name": "Agent", "kind": "robot"}))
		var created struct {
			domain.APIKey
			Key string `json:"key"`
		}
		e.OK(201, e.Call(f.Key, "POST", "/keys", map[string]any{"name": "Agent", "kind": "platform"})).Into(t, &created)
		if created.Kind != "platform_key" || len(created.Scopes) != 1 || created.Scopes[0] != "public:read" {
			t.Fatalf("created platform key: %+v", created.APIKey)
		}
		var keys kit.List[domain.APIKey]
		e.OK(200, e.Call(f.Key, "GET", "/keys", nil)).Into(t, &keys)
		kinds := map[string]string{}
		for _, k := range keys.Items {
			kinds[k.ID] = k.Kind
		}
		if kinds[created.ID] != "platform_key" || kinds[f.KeyID] != "studio_key" {
			t.Errorf("listed kinds: %v", kinds)
		}

		var offer struct {
			Studio string `json:"studio"`
			Plans  []struct {
				Name         string   `json:"name"`
				Price        *float64 `json:"price"`
				DurationDays *int     `json:"durationDays"`
			} `json:"plans"`
			Programs []struct {
				Name  string `json:"name"`
				Weeks *int   `json:"weeks"`
			} `json:"programs"`
			HowToJoin string `json:"howToJoin"`
		}
		a := e.OK(200, e.Call(created.Key, "GET", "/public/studio", nil))
		a.Into(t, &offer)
		if offer.Studio != f.Studio.Name || len(offer.Plans) != 2 || len(offer.Programs) != 1 || offer.Programs[0].Name != "Strength plat" || !strings.Contains(offer.HowToJoin, f.Studio.Name) {
			t.Fatalf("offer: %s", a.Raw)
		}
		for _, p := range offer.Plans {
			if p.Name == "Monthly plat" && (p.Price == nil || *p.Price != 300 || p.DurationDays == nil || *p.DurationDays != 30) {
				t.Errorf("monthly plan: %+v", p)
			}
		}
		for _, leak := range []string{other.Product.Name, f.Trainee.ID, f.Coach.Name, "prd_", "tpl_"} {
			if strings.Contains(a.Raw, leak) {
				t.Errorf("the public offer holds %q: %s", leak, a.Raw)
			}
		}

		// Every other route is closed to it, reads and writes alike.
		for _, c := range [][2]string{{"GET", "/tasks"}, {"GET", "/trainees/" + f.Trainee.ID}, {"GET", "/keys"}, {"POST", "/tasks"}, {"GET", "/products"}} {
			got := e.Fails(403, "FORBIDDEN", e.Call(created.Key, c[0], c[1], map[string]any{}))
			if !strings.Contains(got.Message(), "agent platform") {
				t.Errorf("%s %s: %q", c[0], c[1], got.Message())
			}
		}
		// `me` names no one for a platform key.
		e.Fails(404, "NOT_FOUND", e.Call(created.Key, "GET", "/trainees/me/plan", nil))
		e.Fails(403, "FORBIDDEN", e.Call(f.Key, "GET", "/public/studio", nil))
	})
}
