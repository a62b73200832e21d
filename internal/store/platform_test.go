package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// A key keeps its kind (an older row reads as a studio key), and an audit
// event keeps the conversation an agent platform described, on both engines.
func TestKeyKindAndAuditConversation(t *testing.T) {
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
