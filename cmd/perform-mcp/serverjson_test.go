package main

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/buildinfo"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
)

// registrySchema is the MCP Registry's published schema of server.json,
// vendored as it was published (a spec file, not code):
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json,
// the schema current on 2026-12-04 (the registry's package-types and
// publishing pages name it). server.json's $schema names the same URL.
const registrySchema = "testdata/server.schema.json"

// serverJSON is the repository's entry for the official MCP Registry.
const serverJSON = "../../server.json"

func loadRegistrySchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	b, err := os.ReadFile(registrySchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", registrySchema, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving %s: %v", registrySchema, err)
	}
	return resolved
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// server.json is valid against the registry's published schema, names
// that schema, carries the release's exact version (the one initialize
// reports; v-prefixed for the Go module), and describes the hosted /mcp
// and this binary as they are.
func TestServerJSONIsValidForTheMCPRegistry(t *testing.T) {
	schema := loadRegistrySchema(t)
	doc := readJSON(t, serverJSON)
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("server.json is not valid against the registry's schema: %v", err)
	}
	if doc["$schema"] != schema.Schema().ID {
		t.Errorf("server.json's $schema is %v; the vendored schema is %s", doc["$schema"], schema.Schema().ID)
	}

	var entry struct {
		Name, Title, Version, WebsiteURL string
		Repository                       struct{ URL, Source string }
		Icons                            []struct{ Src, MimeType string }
		Remotes                          []struct {
			Type, URL string
			Variables map[string]struct{ IsRequired bool }
		}
		Packages []struct {
			RegistryType, RegistryBaseURL, Identifier, Version, RuntimeHint string
			RuntimeArguments                                                []struct{ Type, Value string }
			Transport                                                       struct{ Type string }
			EnvironmentVariables                                            []struct {
				Name                 string
				IsRequired, IsSecret bool
			}
		}
	}
	b, _ := os.ReadFile(serverJSON)
	if err := json.Unmarshal(b, &entry); err != nil {
		t.Fatal(err)
	}
	if entry.Version != toolset.Version {
		t.Errorf("server.json's version is %q; the release (buildinfo.Version, reported at initialize) is %q", entry.Version, buildinfo.Version)
	}
	// The registry takes a GitHub namespace from the repository's owner.
	owner := strings.TrimPrefix(entry.Repository.URL, "https://github.com/")
	owner, _, _ = strings.Cut(owner, "/")
	if entry.Name != "io.github."+owner+"/perform" || entry.Title != "Perform" {
		t.Errorf("name %q, title %q; the repository is %s", entry.Name, entry.Title, entry.Repository.URL)
	}
	// format: uri is an annotation the validator does not assert: the
	// URLs are checked here, the icon over HTTPS as the schema says.
	for _, u := range []string{entry.WebsiteURL, entry.Repository.URL} {
		if p, err := url.Parse(u); err != nil || p.Scheme != "https" || p.Host == "" {
			t.Errorf("%q is not an https URL", u)
		}
	}
	if len(entry.Icons) != 1 || !strings.HasSuffix(entry.Icons[0].Src, "/internal/server/static/icon.png") || !strings.HasPrefix(entry.Icons[0].Src, "https://") {
		t.Errorf("icons %+v: the served icon, over https", entry.Icons)
	}
	if len(entry.Remotes) != 1 || entry.Remotes[0].Type != "streamable-http" || entry.Remotes[0].URL != "https://{host}/mcp" || !entry.Remotes[0].Variables["host"].IsRequired {
		t.Errorf("remotes %+v: the hosted /mcp over streamable HTTP, its host a required variable", entry.Remotes)
	}
	if len(entry.Packages) != 1 {
		t.Fatalf("packages %+v: perform-mcp", entry.Packages)
	}
	p := entry.Packages[0]
	command := []string{p.RuntimeHint}
	for _, a := range p.RuntimeArguments {
		command = append(command, a.Value)
	}
	if p.RegistryType != "go" || p.RegistryBaseURL != "https://proxy.golang.org" || p.Identifier != "github.com/otherwise/perform" ||
		p.Version != "v"+buildinfo.Version || p.Transport.Type != "stdio" ||
		strings.Join(command, " ") != "go run github.com/otherwise/perform/cmd/perform-mcp@v"+buildinfo.Version {
		t.Errorf("package %+v (runs %q): perform-mcp of this module's v%s, over stdio", p, strings.Join(command, " "), buildinfo.Version)
	}
	vars := map[string]bool{}
	for _, e := range p.EnvironmentVariables {
		vars[e.Name] = e.IsRequired
		if e.Name == "PERFORM_API_KEY" && !e.IsSecret {
			t.Error("PERFORM_API_KEY is not marked secret")
		}
	}
	if !vars["PERFORM_API_KEY"] || !vars["PERFORM_API_URL"] || len(vars) != 2 {
		t.Errorf("environment variables %v: perform-mcp reads PERFORM_API_KEY and PERFORM_API_URL", vars)
	}
}

// The validator enforces the vendored schema: entries the registry would
// refuse fail it, so a valid server.json above means something.
func TestTheRegistrySchemaRefusesBrokenEntries(t *testing.T) {
	schema := loadRegistrySchema(t)
	for name, breakIt := range map[string]func(m map[string]any){
		"no description":              func(m map[string]any) { delete(m, "description") },
		"a long description":          func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"a name with no slash":        func(m map[string]any) { m["name"] = "perform" },
		"version latest":              func(m map[string]any) { pkg(m)["version"] = "latest" },
		"a package with no transport": func(m map[string]any) { delete(pkg(m), "transport") },
		"a websocket remote": func(m map[string]any) {
			m["remotes"].([]any)[0].(map[string]any)["type"] = "websocket"
		},
		"an icon of another type": func(m map[string]any) {
			m["icons"].([]any)[0].(map[string]any)["mimeType"] = "image/gif"
		},
	} {
		doc := readJSON(t, serverJSON)
		breakIt(doc)
		if err := schema.Validate(doc); err == nil {
			t.Errorf("server.json with %s passes the registry's schema", name)
		}
	}
}

func pkg(m map[string]any) map[string]any { return m["packages"].([]any)[0].(map[string]any) }
