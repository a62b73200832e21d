package oauth

import (
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// asMetadata is RFC 8414 metadata. The SDK's type makes jwks_uri required;
// Perform signs nothing, so the field is shadowed to be left out.
type asMetadata struct {
	oauthex.AuthServerMeta
	JWKSURI string `json:"jwks_uri,omitempty"`
}

// serveASMetadata answers the authorization server's metadata. There is
// no OpenID configuration: Perform issues no ID tokens.
func (s *Server) serveASMetadata(w http.ResponseWriter, r *http.Request) {
	iss := s.Issuer(r)
	if iss == "" {
		s.noIssuer(w)
		return
	}
	writeMetadata(w, asMetadata{AuthServerMeta: oauthex.AuthServerMeta{
		Issuer:                                     iss,
		AuthorizationEndpoint:                      iss + PathAuthorize,
		TokenEndpoint:                              iss + PathToken,
		RegistrationEndpoint:                       iss + PathRegister,
		RevocationEndpoint:                         iss + PathRevoke,
		ScopesSupported:                            Scopes,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          authMethods,
		RevocationEndpointAuthMethodsSupported:     authMethods,
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          s.metadataDocs,
		AuthorizationResponseIssParameterSupported: true,
		ServiceDocumentation:                       iss + "/",
	}})
}

// authMethods are the token endpoint's client authentication methods.
var authMethods = []string{"none", "client_secret_basic", "client_secret_post"}

// serveResourceMetadata answers RFC 9728 metadata for /mcp, at its
// path-suffixed address and at the root form.
func (s *Server) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	iss := s.Issuer(r)
	if iss == "" {
		s.noIssuer(w)
		return
	}
	writeMetadata(w, oauthex.ProtectedResourceMetadata{
		Resource:               iss + MCPPath,
		AuthorizationServers:   []string{iss},
		ScopesSupported:        Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Perform",
	})
}

func writeMetadata(w http.ResponseWriter, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Access-Control-Allow-Origin", "*") // browser-based clients read it too
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) noIssuer(w http.ResponseWriter) {
	writeOAuthError(w, http.StatusInternalServerError, "server_error",
		"This server has no public URL; set PERFORM_PUBLIC_URL to the address clients reach it at.")
}
