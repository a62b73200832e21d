package oauth_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// authorizePage asks /authorize for clientID and answers the status and page.
func (e *env) authorizePage(clientID string) (int, string) {
	e.t.Helper()
	_, challenge := pkce()
	req, _ := http.NewRequest("GET", e.srv.URL+"/authorize?"+authParams(clientID, "https://app.example/cb", challenge).Encode(), nil)
	status, page, _ := e.send(req, "")
	return status, page
}

func (e *env) asMetadata() map[string]any {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.srv.URL+"/.well-known/oauth-authorization-server", nil)
	status, body, _ := e.send(req, "")
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); status != http.StatusOK || err != nil {
		e.t.Fatalf("the metadata: %d %s", status, body)
	}
	return out
}

// With client ID metadata documents turned off
// (PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS=off), the metadata stops
// offering them, so a client registers; a client_id that is a URL is
// refused with a page saying what to do, and nothing is fetched; a
// registered client signs in as before.
func TestMetadataDocumentsOff(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		on := newEnv(t, st)
		if on.asMetadata()["client_id_metadata_document_supported"] != true {
			t.Fatalf("by default the metadata offers metadata documents: %v", on.asMetadata())
		}
		e := newEnv(t, st, func(o *oauth.Options) { o.NoMetadataDocuments = true })
		if m := e.asMetadata(); m["client_id_metadata_document_supported"] != nil || m["registration_endpoint"] == nil {
			t.Fatalf("with metadata documents off the metadata still offers them: %v", m)
		}
		status, page := e.authorizePage("https://claude.ai/oauth/claude-code-client-metadata")
		if status != http.StatusBadRequest || !strings.Contains(page, "invalid_client") || !strings.Contains(page, "register") ||
			!strings.Contains(page, oauth.MetadataDocumentsSetting) {
			t.Fatalf("a metadata document URL with documents off: %d %s", status, page)
		}
		client := e.register("https://app.example/cb", "")
		if tok := e.grant(client, "https://app.example/cb"); tok["access_token"] == nil {
			t.Fatalf("a registered client: %v", tok)
		}
	})
}

// A metadata document the server cannot reach (no outbound HTTPS) is
// refused with a page that says the server must reach the app's metadata
// host, or the operator can turn metadata documents off.
func TestMetadataDocumentUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	ln.Close()
	e := newEnv(t, storetest.OpenSQLite(t), func(o *oauth.Options) { o.AllowLoopbackMetadata = true })
	status, page := e.authorizePage("https://" + addr + "/client.json")
	if status != http.StatusBadRequest || !strings.Contains(page, "invalid_client") || !strings.Contains(page, "must reach the app") ||
		!strings.Contains(page, oauth.MetadataDocumentsSetting+"=off") {
		t.Fatalf("an unreachable metadata document: %d %s", status, page)
	}
}
