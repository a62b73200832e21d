package scaleout

import (
	_ "embed"
	"os"
	"strings"
	"testing"
	"text/template"
)

//go:embed haproxy.cfg.tmpl
var haproxyTemplate string

// backendServer is one `server` line of the HAProxy configuration.
type backendServer struct{ Name, Addr string }

// haproxyConfig renders haproxy.cfg.tmpl: the frontend's bind address, the
// stats page's, and the instances.
func haproxyConfig(t testing.TB, bind, stats string, servers []backendServer) string {
	t.Helper()
	tmpl, err := template.New("haproxy").Parse(haproxyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]any{"Bind": bind, "Stats": stats, "Servers": servers}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The deployment page shows the configuration the scale-out test runs,
// rendered with the page's example addresses, byte for byte.
func TestDeploymentPageShowsTheTestedConfig(t *testing.T) {
	page, err := os.ReadFile("../../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	want := haproxyConfig(t, ":80", "127.0.0.1:8404", []backendServer{
		{"perform1", "10.0.0.11:8080"}, {"perform2", "10.0.0.12:8080"},
	})
	if !strings.Contains(string(page), "```\n"+want+"```\n") {
		t.Errorf("docs/deployment.md does not show internal/scaleout/haproxy.cfg.tmpl as rendered for its example; put this in it:\n%s", want)
	}
}
