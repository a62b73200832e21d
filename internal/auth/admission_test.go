package auth

import (
	"context"
	"net/http/httptest"
	"testing"
)

// The admission gives the principal back only for the very token it was
// recorded with, and as a copy: the lane sets the source on its own.
func TestAdmissionForItsOwnTokenOnly(t *testing.T) {
	key := NewKey()
	p := &Principal{StudioID: "std_a", CredentialID: "key_a", Scopes: []string{ScopeStudioRead}}
	ctx := Admit(context.Background(), key, p)
	a, ok := AdmissionFrom(ctx)
	if !ok {
		t.Fatal("Admit left no admission")
	}
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
		got, ok := a.For(r)
		if ok != want || ok && (got.CredentialID != "key_a" || got == p) {
			t.Errorf("Authorization %q: %+v %v; want found=%v, a copy", header, got, ok, want)
		}
		if ok {
			got.Source = "mcp"
			got.Scopes = append(got.Scopes, ScopeStudioWrite)
			if p.Source != "" || len(p.Scopes) != 1 || len(a.Principal().Scopes) != 1 {
				t.Fatalf("changing the copy changed the admitted principal: %+v", a.Principal())
			}
		}
	}
	none, ok := AdmissionFrom(context.Background())
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Authorization", "Bearer "+key)
	if _, found := none.For(r); ok || found || none.Take("key_a") {
		t.Fatal("a context without an admission answered a principal or a unit of the limit")
	}
}

// An admission's unit of the rate limit is taken once, and only for its
// own credential.
func TestAdmissionTakenOnce(t *testing.T) {
	a, _ := AdmissionFrom(Admit(context.Background(), "", &Principal{CredentialID: "key_a"}))
	if a.Take("key_b") {
		t.Fatal("another credential took the admission")
	}
	if !a.Take("key_a") {
		t.Fatal("the admitted credential could not take its unit")
	}
	if a.Take("key_a") {
		t.Fatal("the unit was taken twice")
	}
}
