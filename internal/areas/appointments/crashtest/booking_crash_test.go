//go:build crash

package crashtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
)

// server is one running perform serve.
type server struct{ *testkit.Served }

func serve(t *testing.T, db, name string) *server {
	t.Helper()
	return &server{testkit.Serve(t, name, []string{"PERFORM_DATABASE_URL=" + db}, nil)}
}

// call sends one lane request and answers its status and data; a request
// the killed server never answered is status 0.
func (s *server) call(key, method, path string, body any, idem string) (int, json.RawMessage) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.URL+"/v1/automation"+path, r)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, raw
	}
	return resp.StatusCode, env.Data
}

func (s *server) must(t *testing.T, key, method, path string, body any, into any) {
	t.Helper()
	status, data := s.call(key, method, path, body, "")
	if status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, status, data)
	}
	if into != nil {
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// booking is one booking of the burst: its day and time, and its key.
type booking struct {
	day, time, key string
}

// A burst of bookings, each with its own Idempotency-Key, runs against a
// server that is killed (SIGKILL) part-way. The restarted server is sent
// every booking again with the same key: each acknowledged booking answers
// as it was acknowledged, and in the end the trainee holds each booking
// exactly once, with one credit used for each.
func TestABookingBurstSurvivesAKilledServer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "perform.db")
	ctx := context.Background()
	st, err := store.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	studio := domain.Studio{Name: "Crash Studio", Slug: "crash-bookings", Tier: "business"}
	if err := st.CreateStudio(ctx, &studio); err != nil {
		t.Fatal(err)
	}
	key := auth.NewKey()
	if err := st.CreateAPIKey(ctx, &domain.APIKey{StudioID: studio.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key),
		Scopes: auth.StudioScopes}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	first := serve(t, db, "first")
	var coach, trainee, plan struct{ ID string }
	first.must(t, key, "POST", "/coaches", map[string]any{"name": "Dana Levi"}, &coach)
	first.must(t, key, "POST", "/trainees", map[string]any{"firstName": "Omer", "lastName": "Tal", "phone": "050-123-4567", "coachIds": []string{coach.ID}}, &trainee)
	first.must(t, key, "POST", "/products", map[string]any{"name": "100 sessions", "price": 5000, "kind": "package", "sessions": 100}, &plan)
	first.must(t, key, "POST", "/trainees/"+trainee.ID+"/subscription", map[string]any{"productId": plan.ID}, nil)
	var hours []map[string]string
	for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		hours = append(hours, map[string]string{"day": d, "from": "06:00", "to": "22:00"})
	}
	first.must(t, key, "PUT", "/coaches/"+coach.ID+"/hours", map[string]any{"hours": hours}, nil)

	var burst []booking
	start := time.Now().AddDate(0, 0, 2)
	for d := range 8 {
		for h := 8; h < 13; h++ {
			burst = append(burst, booking{day: start.AddDate(0, 0, d).Format("2006-01-02"), time: fmt.Sprintf("%02d:00", h), key: fmt.Sprintf("book-%d-%d", d, h)})
		}
	}
	book := func(s *server, b booking) (int, json.RawMessage) {
		return s.call(key, "POST", "/trainees/"+trainee.ID+"/appointments",
			map[string]any{"day": b.day, "time": b.time, "coachId": coach.ID, "waitlist": false}, b.key)
	}

	// The burst: four at a time; the server is killed after the eighth
	// acknowledgement, with more bookings in flight.
	var mu sync.Mutex
	acked := map[string]string{} // key → appointment id
	killed := make(chan struct{})
	var once sync.Once
	work := make(chan booking)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for b := range work {
				status, data := book(first, b)
				if status != 201 && status != 200 {
					continue // refused or cut off by the kill
				}
				var a struct{ ID string }
				if json.Unmarshal(data, &a) != nil || a.ID == "" {
					continue
				}
				mu.Lock()
				acked[b.key] = a.ID
				n := len(acked)
				mu.Unlock()
				if n == 8 {
					once.Do(func() { first.Kill(); close(killed) })
				}
			}
		})
	}
	for _, b := range burst {
		select {
		case work <- b:
		case <-killed:
		}
	}
	close(work)
	wg.Wait()
	once.Do(func() { first.Kill(); close(killed) })
	if len(acked) < 8 || len(acked) == len(burst) {
		t.Fatalf("%d of %d bookings were acknowledged before the kill; the test wants the kill part-way", len(acked), len(burst))
	}
	t.Logf("%d of %d bookings acknowledged before the kill", len(acked), len(burst))

	second := serve(t, db, "second")
	for _, b := range burst {
		var status int
		var data json.RawMessage
		// A key the killed server had claimed answers 409 (in progress)
		// until its claim is stale, a minute on.
		for range 100 {
			if status, data = book(second, b); status != http.StatusConflict {
				break
			}
			time.Sleep(time.Second)
		}
		if status != 201 && status != 200 {
			t.Fatalf("booking %s again: %d %s", b.key, status, data)
		}
		var a struct{ ID string }
		_ = json.Unmarshal(data, &a)
		if id, ok := acked[b.key]; ok && a.ID != id {
			t.Errorf("booking %s was acknowledged as %s before the kill and answers %s after it", b.key, id, a.ID)
		}
	}

	var list struct {
		Items []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			StartsAt string `json:"startsAt"`
		} `json:"items"`
		Total int `json:"total"`
	}
	second.must(t, key, "GET", "/trainees/"+trainee.ID+"/appointments?from="+start.Format("2006-01-02")+"&limit=200", nil, &list)
	starts := map[string]int{}
	for _, a := range list.Items {
		if a.Status == "booked" {
			starts[a.StartsAt]++
		}
	}
	if len(starts) != len(burst) {
		t.Errorf("the trainee holds %d booked times; want %d", len(starts), len(burst))
	}
	for at, n := range starts {
		if n != 1 {
			t.Errorf("%s is booked %d times", at, n)
		}
	}
	var billing json.RawMessage
	second.must(t, key, "GET", "/trainees/"+trainee.ID+"/billing", nil, &billing)
	if want := fmt.Sprintf(`"sessionsUsed":%d`, len(burst)); !bytes.Contains(billing, []byte(want)) {
		t.Errorf("credits after the restart: want %s in %s", want, billing)
	}
}
