package oauth

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// BenchmarkAuthenticateAccessToken is the resource server's cost per
// request: one indexed query (token, grant, studio) on SQLite.
func BenchmarkAuthenticateAccessToken(b *testing.B) {
	st := storetest.OpenSQLite(b)
	ctx := context.Background()
	studio := domain.Studio{Name: "Bench", Slug: "bench"}
	if err := st.CreateStudio(ctx, &studio); err != nil {
		b.Fatal(err)
	}
	c, _, err := AddClient(ctx, st, time.Now(), store.ClientFromCLI, "Bench", []string{"http://127.0.0.1/cb"}, "none")
	if err != nil {
		b.Fatal(err)
	}
	// A grant answers while the person it names is an active coach (or a
	// trainee still on the roster) of its studio.
	coach := domain.Coach{Name: "Bench Coach", Active: true}
	if err := st.Studio(studio.ID).CreateCoach(ctx, &coach); err != nil {
		b.Fatal(err)
	}
	s := New(Options{Store: st})
	g := &store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studio.ID, Subject: coach.ID, ClientID: c.ID, Scopes: CoachScopes, Resource: "r"}
	resp, tokens := s.newTokens(g, time.Now())
	if err := st.OAuth().CreateOAuthGrant(ctx, g, nil, tokens); err != nil {
		b.Fatal(err)
	}
	authn := credentials.New(credentials.Options{Keys: st, Grants: s})
	r, _ := http.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+resp.AccessToken)
	b.ReportAllocs()
	for b.Loop() {
		p, err := authn.Authenticate(ctx, r)
		if err != nil || p.Kind != auth.KindOAuthGrant {
			b.Fatal(p, err)
		}
	}
}
