package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
)

// What the directories read from a served Perform: the ChatGPT apps
// challenge token from PERFORM_OPENAI_APPS_CHALLENGE, the icon, and /mcp's
// server info naming the icon and the site at PERFORM_PUBLIC_URL.
func TestServeAnswersTheDirectoriesFiles(t *testing.T) {
	t.Parallel()
	r := start(t, map[string]string{"PORT": "0", "PERFORM_PUBLIC_URL": "https://perform.example",
		"PERFORM_OPENAI_APPS_CHALLENGE": "oai-token-123"}, "demo", "--host", "127.0.0.1")
	local := "http://" + r.address
	for path, want := range map[string]string{"/.well-known/openai-apps-challenge": "text/plain; charset=utf-8", "/icon.png": "image/png"} {
		res, err := http.Get(local + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != want || len(body) == 0 {
			t.Errorf("GET %s: %d %s (%d bytes)", path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		if path == "/.well-known/openai-apps-challenge" && string(body) != "oai-token-123" {
			t.Errorf("GET %s: %q", path, body)
		}
	}
	key := regexp.MustCompile(`API key:\s+(pf_live_\S+)`).FindStringSubmatch(r.stdout.String())
	if key == nil {
		t.Fatalf("demo printed no key: %s", r.stdout.String())
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "perform-directory", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: local + "/mcp",
		HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: key[1]}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	info := cs.InitializeResult().ServerInfo
	if info.WebsiteURL != "https://perform.example" || len(info.Icons) != 1 || info.Icons[0].Source != "https://perform.example/icon.png" {
		t.Errorf("/mcp's server info: %+v", info)
	}
}
