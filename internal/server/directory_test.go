package server

import (
	"bytes"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/mcpserver/toolset"
)

// The ChatGPT apps directory's challenge answers the configured token as
// plain text, and is 404 like any unknown path when none is set.
func TestOpenAIAppsChallenge(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.OpenAIAppsChallenge = "oai-challenge-token_1"
	srv := httptest.NewServer(newServer(t, cfg).Handler())
	defer srv.Close()
	a := call(t, "GET", srv.URL+OpenAIAppsChallengePath, "")
	if a.status != 200 || a.body != "oai-challenge-token_1" || !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%s: %d %q %q", OpenAIAppsChallengePath, a.status, a.header.Get("Content-Type"), a.body)
	}
	if a := call(t, "POST", srv.URL+OpenAIAppsChallengePath, ""); a.status != 405 {
		t.Errorf("POST %s: %d %s", OpenAIAppsChallengePath, a.status, a.body)
	}

	unset := httptest.NewServer(newServer(t, testConfig(t)).Handler())
	defer unset.Close()
	if a := call(t, "GET", unset.URL+OpenAIAppsChallengePath, ""); a.status != 404 || strings.Contains(a.body, "oai") {
		t.Fatalf("%s without a token: %d %s", OpenAIAppsChallengePath, a.status, a.body)
	}
}

// The icon is a square PNG, cached for a day and revalidated by its ETag.
func TestIconIsServedWithCachingHeaders(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newServer(t, testConfig(t)).Handler())
	defer srv.Close()
	a := call(t, "GET", srv.URL+IconPath, "")
	if a.status != 200 || a.header.Get("Content-Type") != "image/png" || a.header.Get("Cache-Control") != "public, max-age=86400" || a.header.Get("ETag") == "" {
		t.Fatalf("%s: %d %v", IconPath, a.status, a.header)
	}
	img, err := png.Decode(bytes.NewReader([]byte(a.body)))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", IconPath, err)
	}
	if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
		t.Errorf("the icon is %v, want 256×256", b)
	}
	req, _ := http.NewRequest("GET", srv.URL+IconPath, nil)
	req.Header.Set("If-None-Match", a.header.Get("ETag"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("%s with its ETag: %d, want 304", IconPath, res.StatusCode)
	}
}

// The MCP servers name the icon at the path the server serves it.
func TestTheIconPathIsTheMCPServersOwn(t *testing.T) {
	t.Parallel()
	if IconPath != toolset.IconPath {
		t.Fatalf("the server serves the icon at %s; the MCP server info names %s", IconPath, toolset.IconPath)
	}
}
