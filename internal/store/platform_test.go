package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// A key keeps its kind (an older row reads as a studio key), a platform
// conversation its verification, and an audit
// event keeps the conversation an agent platform described, on both engines.
func TestPlatformKeysConversationsAndAudit(t *testing.T) {
	ctx := context.Background()
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			studio := domain.Studio{Name: "Kinds", Slug: "kinds"}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			studioKey := domain.APIKey{StudioID: studio.ID, Name: "app", Prefix: "pf_live_aaaa", Hash: auth.Hash("a")}
			platformKey := domain.APIKey{StudioID: studio.ID, Name: "perfox", Prefix: "pf_live_bbbb", Hash: auth.Hash("b"), Kind: string(auth.KindPlatformKey)}
			for _, k := range []*domain.APIKey{&studioKey, &platformKey} {
				if err := st.CreateAPIKey(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			got, _, err := st.APIKeyByHash(ctx, auth.Hash("b"))
			if err != nil || got.Kind != string(auth.KindPlatformKey) || len(got.Scopes) != 1 || got.Scopes[0] != auth.ScopePublicRead {
				t.Fatalf("platform key: %+v %v", got, err)
			}
			keys, err := st.ListAPIKeys(ctx, studio.ID)
			kinds := map[string]string{}
			for _, k := range keys {
				kinds[k.Name] = k.Kind
			}
			if err != nil || len(keys) != 2 || kinds["app"] != string(auth.KindStudioKey) || kinds["perfox"] != string(auth.KindPlatformKey) {
				t.Fatalf("keys: %v %v", kinds, err)
			}

			// A conversation's verification: written in full, read back;
			// a row of no trainee keeps no trainee and no code.
			now := time.UnixMilli(time.Now().UnixMilli()).UTC()
			until := now.Add(24 * time.Hour)
			pc := store.PlatformConversation{Hash: auth.Hash("conv"), StudioID: studio.ID, CreatedAt: now}
			if err := st.Platform().PutConversation(ctx, pc); err != nil {
				t.Fatal(err)
			}
			pc.TraineeID, pc.VerifiedAt, pc.VerifiedUntil = "trn_x", &now, &until
			if err := st.Platform().PutConversation(ctx, pc); err != nil {
				t.Fatal(err)
			}
			back, err := st.Platform().Conversation(ctx, auth.Hash("conv"))
			if err != nil || back.TraineeID != "trn_x" || back.VerifiedUntil == nil || !back.VerifiedUntil.Equal(until) || !back.CreatedAt.Equal(now) {
				t.Fatalf("conversation: %+v %v", back, err)
			}
			if err := st.Platform().PutConversation(ctx, store.PlatformConversation{Hash: auth.Hash("nobody"), StudioID: studio.ID, CreatedAt: now}); err != nil {
				t.Fatal(err)
			}
			if back, err := st.Platform().Conversation(ctx, auth.Hash("nobody")); err != nil || back.TraineeID != "" || back.VerifiedAt != nil {
				t.Fatalf("nobody's conversation: %+v %v", back, err)
			}
			if _, err := st.Platform().Conversation(ctx, auth.Hash("unknown")); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("an unknown conversation: %v", err)
			}

			conv := json.RawMessage(`{"conversationId":"conv_1","channel":"phone"}`)
			if err := st.InsertAudit(ctx, []domain.AuditEvent{
				{StudioID: studio.ID, CredentialID: platformKey.ID, Method: "GET", Route: "GET /v1/automation/public/studio", Status: 200, Conversation: conv},
				{StudioID: studio.ID, CredentialID: studioKey.ID, Method: "GET", Route: "GET /v1/automation/products", Status: 200},
			}); err != nil {
				t.Fatal(err)
			}
			events, err := st.ListAudit(ctx, studio.ID, store.Page{Limit: 10})
			if err != nil || len(events.Items) != 2 {
				t.Fatalf("audit: %+v %v", events, err)
			}
			for _, e := range events.Items {
				var c map[string]string
				switch e.CredentialID {
				case platformKey.ID:
					if json.Unmarshal(e.Conversation, &c) != nil || c["conversationId"] != "conv_1" || c["channel"] != "phone" {
						t.Errorf("platform call's conversation: %s", e.Conversation)
					}
				default:
					if e.Conversation != nil {
						t.Errorf("studio call's conversation: %s", e.Conversation)
					}
				}
			}
		})
	}
}

// A forward payload is kept by its hash with its binding; a new one for
// the same conversation revokes the live one; RevokeTokens revokes the
// rest, and counts only live ones; on both engines.
func TestPlatformTokens(t *testing.T) {
	ctx := context.Background()
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			studio := domain.Studio{Name: "Tokens", Slug: "tokens"}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			now := time.UnixMilli(time.Now().UnixMilli()).UTC()
			first := store.PlatformToken{Hash: auth.Hash("t1"), StudioID: studio.ID, TraineeID: "trn_x", KeyID: "key_p", ConversationHash: auth.Hash("conv"),
				Scopes: []string{"me:read", "me:write"}, ExpiresAt: now.Add(24 * time.Hour), CreatedAt: now}
			if err := st.Platform().PutToken(ctx, first); err != nil {
				t.Fatal(err)
			}
			back, err := st.Platform().Token(ctx, auth.Hash("t1"))
			if err != nil || back.TraineeID != "trn_x" || back.KeyID != "key_p" || string(back.ConversationHash) != string(auth.Hash("conv")) ||
				len(back.Scopes) != 2 || back.Scopes[1] != "me:write" || !back.ExpiresAt.Equal(first.ExpiresAt) || back.RevokedAt != nil {
				t.Fatalf("token: %+v %v", back, err)
			}
			later := now.Add(time.Minute)
			second := first
			second.Hash, second.CreatedAt = auth.Hash("t2"), later
			if err := st.Platform().PutToken(ctx, second); err != nil {
				t.Fatal(err)
			}
			if back, err := st.Platform().Token(ctx, auth.Hash("t1")); err != nil || back.RevokedAt == nil || !back.RevokedAt.Equal(later) {
				t.Fatalf("the first token after a second: %+v %v", back, err)
			}
			other := first
			other.Hash, other.ConversationHash = auth.Hash("t3"), auth.Hash("other conv")
			if err := st.Platform().PutToken(ctx, other); err != nil {
				t.Fatal(err)
			}
			if n, err := st.Platform().RevokeTokens(ctx, auth.Hash("conv"), later); err != nil || n != 1 {
				t.Fatalf("revoke: %d %v", n, err)
			}
			if n, err := st.Platform().RevokeTokens(ctx, auth.Hash("conv"), later); err != nil || n != 0 {
				t.Fatalf("revoke again: %d %v", n, err)
			}
			if back, err := st.Platform().Token(ctx, auth.Hash("t3")); err != nil || back.RevokedAt != nil {
				t.Fatalf("another conversation's token: %+v %v", back, err)
			}
			if _, err := st.Platform().Token(ctx, auth.Hash("unknown")); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("an unknown token: %v", err)
			}
		})
	}
}
