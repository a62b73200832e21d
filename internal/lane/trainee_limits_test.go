package lane_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store/storetest"
)

// A trainee's reads and writes have budgets of their own per hour, kept
// per person; over one the lane says when to try again, and the budget
// comes back with the next hour. Studio keys are not held to them.
func TestTraineeLimitsTripAndReset(t *testing.T) {
	t.Parallel()
	hour := time.Now().UTC().Truncate(time.Hour)
	clk := storetest.NewFixedClock(hour)
	st := storetest.OpenSQLite(t)
	e := newToyTrainees(t, st, ratelimit.NewMemory(3, time.Hour).WithClock(clk.Now), ratelimit.NewMemory(2, time.Hour).WithClock(clk.Now), clk.Now)
	s, key, _ := e.Studio("limits", "pro")
	trainee, _ := toyTrainee(t, st, s.ID, "Dana")
	other, _ := toyTrainee(t, st, s.ID, "Noa")
	tok := e.Grant(s.ID, trainee, auth.TraineeScopes...)

	for range 3 {
		e.OK(200, e.Call(tok, "GET", "/trainees/me/weights", nil))
	}
	clk.Set(hour.Add(20 * time.Minute))
	a := e.Fails(http.StatusTooManyRequests, lane.CodeRateLimited, e.Call(tok, "GET", "/trainees/me/weights?limit=5", nil))
	if a.Header.Get("Retry-After") != "2400" || !strings.Contains(a.Message(), "3 reads") || !strings.Contains(a.Message(), "Try again in 40 minutes (at "+hour.Add(time.Hour).Format("15:04")+" UTC") {
		t.Errorf("over the reads: Retry-After %q, %q", a.Header.Get("Retry-After"), a.Message())
	}
	if !strings.Contains(a.Raw, `"retryAfterSeconds":2400`) {
		t.Errorf("the error carries no retryAfterSeconds: %s", a.Raw)
	}
	// Writes have their own budget.
	e.OK(201, e.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70}))
	e.OK(201, e.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70.5}))
	e.Fails(http.StatusTooManyRequests, lane.CodeRateLimited, e.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 71}))

	// Another trainee of the studio, and the studio key, are not held.
	otherTok := e.Grant(s.ID, other, "health:read")
	e.OK(200, e.Call(otherTok, "GET", "/trainees/me/weights", nil))
	for range 10 {
		e.OK(200, e.Call(key, "GET", "/trainees/"+trainee+"/weights", nil))
	}
	e.OK(201, e.Call(key, "POST", "/trainees/"+trainee+"/weights", map[string]any{"weightKg": 70}))

	// A refused request (a coach-only route) spends nothing.
	clk.Set(hour.Add(time.Hour))
	for range 5 {
		e.Fails(403, lane.CodeForbidden, e.Call(tok, "GET", "/tasks", nil))
	}
	for range 3 {
		e.OK(200, e.Call(tok, "GET", "/trainees/me/weights", nil))
	}
	e.Fails(http.StatusTooManyRequests, lane.CodeRateLimited, e.Call(tok, "GET", "/trainees/me/weights", nil))
}

// Two lanes on one Redis share each trainee's budget: the limit holds
// across instances.
func TestTraineeLimitsHoldAcrossInstances(t *testing.T) {
	t.Parallel()
	url := os.Getenv("PERFORM_TEST_REDIS_URL")
	if url == "" {
		t.Skip("PERFORM_TEST_REDIS_URL is not set")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s does not answer: %v", url, err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	prefix := "perform-test:" + hex.EncodeToString(b[:]) + ":"
	st := storetest.OpenSQLite(t)
	limited := func() *kit.Env {
		return newToyTrainees(t, st, ratelimit.NewRedis(c, 4, time.Hour).WithPrefix(prefix), ratelimit.NewRedis(c, 4, time.Hour).WithPrefix(prefix), nil)
	}
	one, two := limited(), limited()
	s, _, _ := one.Studio("shared", "pro")
	trainee, _ := toyTrainee(t, st, s.ID, "Dana")
	tok := one.Grant(s.ID, trainee, auth.TraineeScopes...)
	for i := range 4 {
		lanes := []*kit.Env{one, two}
		lanes[i%2].OK(200, lanes[i%2].Call(tok, "GET", "/trainees/me/weights", nil))
	}
	for _, e := range []*kit.Env{one, two} {
		a := e.Fails(http.StatusTooManyRequests, lane.CodeRateLimited, e.Call(tok, "GET", "/trainees/me/weights", nil))
		if s, _ := strconv.Atoi(a.Header.Get("Retry-After")); s < 1 || s > 3600 {
			t.Errorf("Retry-After %q", a.Header.Get("Retry-After"))
		}
	}
	// The counter is the person's, read and write apart.
	key := prefix + lane.PersonKey(s.ID, trainee, false)
	if n, err := c.Get(context.Background(), key).Int(); err != nil || n != 6 {
		t.Errorf("Redis %s = %d (%v), want 6", key, n, err)
	}
	one.OK(201, one.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70}))
}

// A trainee's budget is of what was served: reads of another trainee's id
// (not found), of another trainee's record, and a request that fails
// validation are refused and spend nothing, in memory and in Redis alike;
// the served reads then get the whole budget.
func TestTraineeRefusalsCostNothing(t *testing.T) {
	limiters := map[string]func(t *testing.T) ratelimit.Limiter{
		"memory": func(t *testing.T) ratelimit.Limiter { return ratelimit.NewMemory(3, time.Hour) },
		"redis": func(t *testing.T) ratelimit.Limiter {
			url := os.Getenv("PERFORM_TEST_REDIS_URL")
			if url == "" {
				t.Skip("PERFORM_TEST_REDIS_URL is not set")
			}
			opts, err := redis.ParseURL(url)
			if err != nil {
				t.Fatal(err)
			}
			c := redis.NewClient(opts)
			t.Cleanup(func() { c.Close() })
			var b [8]byte
			_, _ = rand.Read(b[:])
			return ratelimit.NewShared(c, nil).WithPrefix("perform-test:"+hex.EncodeToString(b[:])+":").Limiter(3, time.Hour, ratelimit.CountInMemory)
		},
	}
	for name, limiter := range limiters {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := storetest.OpenSQLite(t)
			e := newToyTrainees(t, st, limiter(t), limiter(t), nil)
			s, _, _ := e.Studio("refusals", "pro")
			trainee, _ := toyTrainee(t, st, s.ID, "Dana")
			other, otherSession := toyTrainee(t, st, s.ID, "Noa")
			tok := e.Grant(s.ID, trainee, auth.TraineeScopes...)

			for range 10 {
				e.Fails(404, lane.CodeNotFound, e.Call(tok, "GET", "/trainees/"+other+"/weights", nil))
			}
			e.Fails(404, lane.CodeNotFound, e.Call(tok, "GET", "/sessions/"+otherSession, nil))
			e.Fails(422, lane.CodeValidation, e.Call(tok, "GET", "/trainees/me/weights?limit=0", nil))
			for range 3 {
				e.OK(200, e.Call(tok, "GET", "/trainees/me/weights", nil))
			}
			e.Fails(http.StatusTooManyRequests, lane.CodeRateLimited, e.Call(tok, "GET", "/trainees/me/weights", nil))

			// Writes alike: a refused write is not one of the budget.
			for range 4 {
				e.Fails(404, lane.CodeNotFound, e.Call(tok, "POST", "/trainees/"+other+"/weights", map[string]any{"weightKg": 70}))
			}
			for range 3 {
				e.OK(201, e.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70}))
			}
			e.Fails(http.StatusTooManyRequests, lane.CodeRateLimited, e.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70}))
		})
	}
}
