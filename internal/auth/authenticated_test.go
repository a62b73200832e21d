package auth

import (
	"context"
	"net/http/httptest"
	"testing"
)

// The gate's mark gives the principal back only for the very token it was
// recorded with, and as a copy: the lane sets the source on its own.
func TestAuthenticatedFrom(t *testing.T) {
	key := NewKey()
	p := &Principal{StudioID: "std_a", CredentialID: "key_a", Scopes: []string{ScopeStudioRead}}
	ctx := WithAuthenticated(context.Background(), key, p)
	for header, want := range map[string]bool{
		"Bearer " + key:          true,
		"bearer   " + key + "  ": true,
		"Bearer " + NewKey():     false,
		"Basic " + key:           false,
		"":                       false,
	} {
		r := httptest.NewRequestWithContext(ctx, "GET", "/", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		got, ok := AuthenticatedFrom(r.Context(), r)
		if ok != want || ok && (got.CredentialID != "key_a" || got == p) {
			t.Errorf("Authorization %q: %+v %v; want found=%v, a copy", header, got, ok, want)
		}
		if ok {
			got.Source = "mcp"
			got.Scopes = append(got.Scopes, ScopeStudioWrite)
			if p.Source != "" || len(p.Scopes) != 1 {
				t.Fatalf("changing the copy changed the recorded principal: %+v", p)
			}
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Authorization", "Bearer "+key)
	if _, ok := AuthenticatedFrom(r.Context(), r); ok {
		t.Fatal("a request without the mark answered a principal")
	}
}
