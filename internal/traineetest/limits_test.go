package traineetest

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A trainee's reads and writes are held to the hourly limits set, each
// trainee on their own count, studio keys never; over, the tool answers
// an error saying when to try again, with the code and the wait as
// structured content; the next hour opens them again.
func TestPersonLimitsTripAndReset(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, map[string]string{"PERFORM_TRAINEE_READS_PER_HOUR": "3", "PERFORM_TRAINEE_WRITES_PER_HOUR": "2"})
	me := d.connect(d.token(demoPhone, ""))
	other := d.connect(d.token(d.others[0].Phone, ""))

	for i := range 3 {
		if r := call(t, me, "list_sessions", nil); r.IsError {
			t.Fatalf("read %d of 3 refused: %s", i+1, text(r))
		}
	}
	over := call(t, me, "list_sessions", nil)
	if !over.IsError || !strings.Contains(text(over), "Try again") {
		t.Fatalf("the 4th read of the hour was not refused with when to try again: %s", text(over))
	}
	var sc struct {
		Error struct {
			Code              string `json:"code"`
			Message           string `json:"message"`
			RetryAfterSeconds int    `json:"retryAfterSeconds"`
		} `json:"error"`
	}
	decodeInto(t, over.StructuredContent, &sc)
	if sc.Error.Code != "RATE_LIMITED" || sc.Error.RetryAfterSeconds <= 0 || sc.Error.RetryAfterSeconds > 3600 || sc.Error.Message == "" {
		t.Fatalf("the refusal's structured content is %+v", sc)
	}
	t.Logf("refusal: %s", text(over))

	// Writes are counted apart from reads.
	for i := range 2 {
		if r := call(t, me, "daily_check_in", map[string]any{"readiness": 6 + i}); r.IsError {
			t.Fatalf("write %d of 2 refused: %s", i+1, text(r))
		}
	}
	if r := call(t, me, "daily_check_in", map[string]any{"readiness": 9}); !r.IsError || !strings.Contains(text(r), "Try again") {
		t.Fatalf("the 3rd write of the hour was not refused: %s", text(r))
	}
	// Another trainee has their own count; the studio's key none.
	if r := call(t, other, "list_sessions", nil); r.IsError {
		t.Fatalf("another trainee was held by the first one's count: %s", text(r))
	}
	key := d.studioKey(d.studio.ID)
	for range 5 {
		if status, body := d.lane(key, http.MethodGet, "/trainees/"+d.me.ID+"/sessions", nil); status != http.StatusOK {
			t.Fatalf("the studio key was held by the trainee's limit: %d %s", status, body)
		}
	}

	// A new connection of the same trainee shares the count.
	again := d.connect(d.token(demoPhone, ""))
	if r := call(t, again, "list_sessions", nil); !r.IsError {
		t.Fatal("a second connection of the trainee got past the trainee's count")
	}

	// The next hour. The access token has expired by then (tokens live an
	// hour), so the app connects again, as a client refreshing would; the
	// count is the trainee's, not the token's.
	d.clock.Advance(time.Hour + time.Minute)
	me = d.connect(d.token(demoPhone, ""))
	if r := call(t, me, "list_sessions", nil); r.IsError {
		t.Fatalf("an hour later the trainee's reads are still refused: %s", text(r))
	}
	if r := call(t, me, "daily_check_in", map[string]any{"readiness": 8}); r.IsError {
		t.Fatalf("an hour later the trainee's writes are still refused: %s", text(r))
	}
}
