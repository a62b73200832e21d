package lane

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var validKey = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)

// FuzzIdempotencyKey checks the header validator against a regular
// expression of the rule, and that a refusal names the header in a valid
// UTF-8 sentence whatever bytes the key held. It also checks that moving
// bytes between the path and the body changes the request hash.
func FuzzIdempotencyKey(f *testing.F) {
	for _, s := range []string{
		"", "a", "agent:amg_1:0123456789abcdef", "has space", "tab\t", "caf\u00e9", "\x00", "\x7f", "~!\"#",
		strings.Repeat("k", 255), strings.Repeat("k", 256), "\xff\xfe", "new\nline",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		e := checkIdempotencyKey(key)
		if want := validKey.MatchString(key); want != (e == nil) {
			t.Fatalf("key %q: accepted %v, want %v", key, e == nil, want)
		}
		if e != nil {
			if e.Status != http.StatusUnprocessableEntity || e.Code != CodeValidation || len(e.Fields) != 1 || e.Fields[0].Field != IdempotencyHeader ||
				!strings.HasPrefix(e.Message, "Idempotency-Key must be 1 to 255 visible ASCII characters; got ") || !utf8.ValidString(e.Message) {
				t.Fatalf("key %q: refusal %+v", key, e)
			}
		}
		if key != "" && requestHash("POST", "/tasks"+key, nil) == requestHash("POST", "/tasks", []byte(key)) {
			t.Fatalf("key %q moved from path to body keeps the hash", key)
		}
	})
}

func TestKeepsAnswer(t *testing.T) {
	for status, want := range map[int]bool{
		200: true, 201: true, 204: true, 400: true, 402: true, 404: true, 409: true, 413: true, 422: true,
		401: false, 429: false, 500: false, 502: false, 503: false, 0: false, 302: false,
	} {
		if got := keepsAnswer(status); got != want {
			t.Errorf("keepsAnswer(%d) = %v, want %v", status, got, want)
		}
	}
}
