package oauth

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Without the test setting, a metadata document on loopback is refused,
// whether named by address or by a name resolving to it, and the server
// never sees the request (netguard's tests cover the dial-time check).
func TestFetchRefusesLoopback(t *testing.T) {
	hits := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++; io.WriteString(w, "{}") }))
	defer srv.Close()
	f := newFetcher(false, time.Second, nil)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{srv.URL + "/client.json", "https://localhost:" + itoa(port) + "/client.json"} {
		_, err := f.fetch(context.Background(), u, time.Now())
		if err == nil || !strings.Contains(err.Error(), "not public") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if _, err := f.fetch(context.Background(), "http://example.com/client.json", time.Now()); err == nil || !strings.Contains(err.Error(), "not https") {
		t.Errorf("http: %v", err)
	}
	if _, err := f.fetch(context.Background(), "https://example.com/", time.Now()); err == nil || !strings.Contains(err.Error(), "needs a path") {
		t.Errorf("no path: %v", err)
	}
	if hits != 0 {
		t.Fatalf("the loopback server was reached %d times", hits)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCacheAge(t *testing.T) {
	for cc, want := range map[string]time.Duration{
		"": time.Hour, "max-age=60": time.Minute, "public, max-age=600": 10 * time.Minute, "no-store": 0, "no-cache, max-age=60": 0,
		"max-age=999999999": 24 * time.Hour, "max-age=x": time.Hour,
	} {
		if got := cacheAge(cc); got != want {
			t.Errorf("cacheAge(%q) = %v; want %v", cc, got, want)
		}
	}
}
