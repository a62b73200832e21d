package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/store"
)

// Studios.

func testStudios(t *testing.T, st store.Store) {
	s := domain.Studio{Name: "Iron Temple", Slug: "iron-" + randomHex(4)}
	must(t, "CreateStudio", st.CreateStudio(ctx, &s))
	if !strings.HasPrefix(s.ID, "std_") || s.Region != "IL" || s.Tier != "free" || s.CreatedAt.IsZero() {
		t.Fatalf("CreateStudio filled %+v, want std_ id, region IL, tier free, createdAt", s)
	}
	got, err := st.StudioByID(ctx, s.ID)
	must(t, "StudioByID", err)
	if got.Name != s.Name || got.Slug != s.Slug || !sameTime(got.CreatedAt, s.CreatedAt) {
		t.Fatalf("StudioByID = %+v, want %+v", got, s)
	}
	bySlug, err := st.StudioBySlug(ctx, s.Slug)
	must(t, "StudioBySlug", err)
	if bySlug.ID != s.ID {
		t.Fatalf("StudioBySlug = %s, want %s", bySlug.ID, s.ID)
	}
	dup := domain.Studio{Name: "Copy", Slug: s.Slug}
	mustConflict(t, "CreateStudio with a taken slug", st.CreateStudio(ctx, &dup), s.ID)

	_, err = st.StudioByID(ctx, "std_missing")
	mustNotFound(t, "StudioByID(missing)", err)
	_, err = st.StudioBySlug(ctx, "no-such-slug-"+randomHex(4))
	mustNotFound(t, "StudioBySlug(missing)", err)

	settings := json.RawMessage(`{"agent":{"enabled":true}}`)
	must(t, "UpdateStudioSettings", st.UpdateStudioSettings(ctx, s.ID, settings))
	got, _ = st.StudioByID(ctx, s.ID)
	if string(got.Settings) != string(settings) {
		t.Fatalf("settings = %s, want %s", got.Settings, settings)
	}
	mustNotFound(t, "UpdateStudioSettings(missing)", st.UpdateStudioSettings(ctx, "std_missing", settings))

	all, err := st.ListStudios(ctx)
	must(t, "ListStudios", err)
	if !slices.ContainsFunc(all, func(x domain.Studio) bool { return x.ID == s.ID }) {
		t.Fatal("ListStudios misses the new studio")
	}
}

// API keys.

func newKey(t *testing.T, st store.Store, studioID, name string) (string, domain.APIKey) {
	t.Helper()
	secret := auth.NewKey()
	k := domain.APIKey{StudioID: studioID, Name: name, Prefix: auth.Display(secret), Hash: auth.Hash(secret)}
	must(t, "CreateAPIKey", st.CreateAPIKey(ctx, &k))
	return secret, k
}

func testAPIKeys(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	secret, k := newKey(t, st, a.ID, "ci")
	if !strings.HasPrefix(k.ID, "key_") || k.CreatedAt.IsZero() {
		t.Fatalf("CreateAPIKey filled %+v", k)
	}
	gotKey, gotStudio, err := st.APIKeyByHash(ctx, auth.Hash(secret))
	must(t, "APIKeyByHash", err)
	if gotKey.ID != k.ID || gotKey.StudioID != a.ID || gotStudio.ID != a.ID || gotStudio.Slug != a.Slug || !auth.HashEqual(gotKey.Hash, k.Hash) {
		t.Fatalf("APIKeyByHash = %+v, %+v", gotKey, gotStudio)
	}
	if gotKey.LastUsedAt != nil || gotKey.RevokedAt != nil {
		t.Fatal("a new key has lastUsedAt or revokedAt set")
	}
	_, _, err = st.APIKeyByHash(ctx, auth.Hash(auth.NewKey()))
	mustNotFound(t, "APIKeyByHash(unknown)", err)

	orphan := domain.APIKey{StudioID: "std_missing", Name: "x", Prefix: "pf_live_xxxxxxx", Hash: auth.Hash(auth.NewKey())}
	mustNotFound(t, "CreateAPIKey for a missing studio", st.CreateAPIKey(ctx, &orphan))

	// lastUsedAt is written at most once a minute.
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	must(t, "TouchAPIKey", st.TouchAPIKey(ctx, k.ID, t0))
	must(t, "TouchAPIKey again", st.TouchAPIKey(ctx, k.ID, t0.Add(30*time.Second)))
	gotKey, _, _ = st.APIKeyByHash(ctx, k.Hash)
	if gotKey.LastUsedAt == nil || !sameTime(*gotKey.LastUsedAt, t0) {
		t.Fatalf("lastUsedAt = %v, want %v (the second touch within a minute must not write)", gotKey.LastUsedAt, t0)
	}
	t1 := t0.Add(61 * time.Second)
	must(t, "TouchAPIKey later", st.TouchAPIKey(ctx, k.ID, t1))
	gotKey, _, _ = st.APIKeyByHash(ctx, k.Hash)
	if gotKey.LastUsedAt == nil || !sameTime(*gotKey.LastUsedAt, t1) {
		t.Fatalf("lastUsedAt = %v, want %v after a minute", gotKey.LastUsedAt, t1)
	}

	// Keys list oldest first; Run's clock steps between writes.
	_, k2 := newKey(t, st, a.ID, "zapier")
	_, kb := newKey(t, st, b.ID, "other")
	list, err := st.ListAPIKeys(ctx, a.ID)
	must(t, "ListAPIKeys", err)
	if len(list) != 2 || list[0].ID != k.ID || list[1].ID != k2.ID {
		t.Fatalf("ListAPIKeys(a) = %v, want [%s %s]", keyIDs(list), k.ID, k2.ID)
	}

	found, err := st.FindAPIKey(ctx, a.ID, k2.Prefix)
	must(t, "FindAPIKey by prefix", err)
	if found.ID != k2.ID {
		t.Fatalf("FindAPIKey(prefix) = %s, want %s", found.ID, k2.ID)
	}
	found, err = st.FindAPIKey(ctx, "", kb.ID)
	must(t, "FindAPIKey by id in any studio", err)
	if found.StudioID != b.ID {
		t.Fatalf("FindAPIKey(any studio) found studio %s, want %s", found.StudioID, b.ID)
	}
	_, err = st.FindAPIKey(ctx, a.ID, kb.ID)
	mustNotFound(t, "FindAPIKey of another studio", err)

	n, err := st.CountLiveAPIKeys(ctx, a.ID)
	must(t, "CountLiveAPIKeys", err)
	if n != 2 {
		t.Fatalf("CountLiveAPIKeys = %d, want 2", n)
	}
	revokedAt := time.Now().UTC().Truncate(time.Millisecond)
	must(t, "RevokeAPIKey", st.RevokeAPIKey(ctx, k.ID, revokedAt))
	must(t, "RevokeAPIKey again", st.RevokeAPIKey(ctx, k.ID, revokedAt.Add(time.Hour)))
	gotKey, _, err = st.APIKeyByHash(ctx, k.Hash)
	must(t, "APIKeyByHash(revoked)", err)
	if gotKey.RevokedAt == nil || !sameTime(*gotKey.RevokedAt, revokedAt) {
		t.Fatalf("revokedAt = %v, want the first revocation %v", gotKey.RevokedAt, revokedAt)
	}
	n, _ = st.CountLiveAPIKeys(ctx, a.ID)
	if n != 1 {
		t.Fatalf("CountLiveAPIKeys after revoke = %d, want 1", n)
	}
	mustNotFound(t, "RevokeAPIKey(missing)", st.RevokeAPIKey(ctx, "key_missing", revokedAt))
}

func keyIDs(ks []domain.APIKey) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.ID
	}
	return out
}

// Audit.

func testAudit(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	base := time.Now().UTC().Truncate(time.Millisecond)
	var events []domain.AuditEvent
	for i := 0; i < 250; i++ { // more than one insert batch
		events = append(events, domain.AuditEvent{StudioID: a.ID, CredentialID: "key_x", Method: "GET", Route: "/trainees/:id",
			ResourceID: fmt.Sprintf("trn_%03d", i), Status: 200, DurationMs: 1.5, RequestID: fmt.Sprintf("req_%03d", i), Source: domain.SourceMCP, At: base.Add(time.Duration(i) * time.Millisecond)})
	}
	events = append(events, domain.AuditEvent{StudioID: b.ID, Method: "POST", Route: "/tasks", Status: 201, Source: domain.SourceAPI, At: base})
	must(t, "InsertAudit", st.InsertAudit(ctx, events))
	must(t, "InsertAudit(none)", st.InsertAudit(ctx, nil))
	list, err := st.ListAudit(ctx, a.ID, page(10, 0))
	must(t, "ListAudit", err)
	if list.Total != 250 || len(list.Items) != 10 {
		t.Fatalf("ListAudit total %d items %d, want 250 and 10", list.Total, len(list.Items))
	}
	first := list.Items[0]
	if first.RequestID != "req_249" || first.Source != domain.SourceMCP || first.Status != 200 || first.DurationMs != 1.5 || !sameTime(first.At, base.Add(249*time.Millisecond)) {
		t.Fatalf("newest audit event = %+v", first)
	}
	last, _ := st.ListAudit(ctx, a.ID, page(10, 245))
	if len(last.Items) != 5 || last.Items[4].RequestID != "req_000" {
		t.Fatalf("last page = %d items, want 5 ending with req_000", len(last.Items))
	}
	other, _ := st.ListAudit(ctx, b.ID, page(50, 0))
	if other.Total != 1 || other.Items[0].Route != "/tasks" {
		t.Fatalf("studio b audit = %+v", other)
	}
}

// Coaches.

func testCoaches(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	c := domain.Coach{Name: "Avi", Phone: ptr("+972541234567"), Email: ptr("avi@example.com"), Gender: ptr("male"), Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &c))
	inactive := domain.Coach{Name: "Bella", Phone: ptr("+972541234568"), Active: false}
	must(t, "CreateCoach inactive", ss.CreateCoach(ctx, &inactive))
	noPhone := domain.Coach{Name: "Carmel", Active: true}
	must(t, "CreateCoach without phone", ss.CreateCoach(ctx, &noPhone))

	got, err := ss.GetCoach(ctx, c.ID)
	must(t, "GetCoach", err)
	if got.Name != "Avi" || *got.Phone != "+972541234567" || *got.Email != "avi@example.com" || got.Gender == nil || *got.Gender != "male" || !got.Active || got.LastActiveAt != nil {
		t.Fatalf("GetCoach = %+v", got)
	}
	if got, _ := ss.GetCoach(ctx, noPhone.ID); got.Gender != nil {
		t.Fatalf("a coach created without a gender has %q", *got.Gender)
	}
	_, err = st.Studio(b.ID).GetCoach(ctx, c.ID)
	mustNotFound(t, "GetCoach from another studio", err)

	list, err := ss.ListCoaches(ctx, page(2, 0))
	must(t, "ListCoaches", err)
	if list.Total != 3 || len(list.Items) != 2 || list.Items[0].Name != "Avi" || list.Items[1].Name != "Bella" {
		t.Fatalf("ListCoaches = %+v", list)
	}

	seen := time.Now().UTC().Truncate(time.Millisecond)
	c.LastActiveAt = &seen
	c.Name, c.Gender = "Avi K", ptr("female")
	must(t, "UpdateCoach", ss.UpdateCoach(ctx, &c))
	got, _ = ss.GetCoach(ctx, c.ID)
	if got.Name != "Avi K" || got.Gender == nil || *got.Gender != "female" || got.LastActiveAt == nil || !sameTime(*got.LastActiveAt, seen) {
		t.Fatalf("after UpdateCoach = %+v", got)
	}
	mustNotFound(t, "UpdateCoach from another studio", st.Studio(b.ID).UpdateCoach(ctx, &c))

	// The assistant finds coaches by the lookup form of the phone, however
	// it was typed, in every studio; inactive coaches are left out.
	typed := domain.Coach{Name: "Avi in B", Phone: ptr("054-123 4567"), Active: true}
	must(t, "CreateCoach typed phone", st.Studio(b.ID).CreateCoach(ctx, &typed))
	refs, err := st.Agent().ActiveCoachesByPhone(ctx, phone.Key("972541234567"))
	must(t, "ActiveCoachesByPhone", err)
	if len(refs) != 2 || refs[0].Coach.ID != c.ID && refs[1].Coach.ID != c.ID || refs[0].Coach.ID != typed.ID && refs[1].Coach.ID != typed.ID {
		t.Fatalf("ActiveCoachesByPhone = %+v, want Avi in both studios", refs)
	}
	for _, r := range refs {
		if want := map[string]string{c.ID: a.ID, typed.ID: b.ID}[r.Coach.ID]; r.StudioID != want {
			t.Fatalf("ActiveCoachesByPhone: coach %s in studio %s, want %s", r.Coach.ID, r.StudioID, want)
		}
	}
	// A changed phone moves the coach to the new key.
	typed.Phone = ptr("+972 54 999 0000")
	must(t, "UpdateCoach phone", st.Studio(b.ID).UpdateCoach(ctx, &typed))
	refs, err = st.Agent().ActiveCoachesByPhone(ctx, "+972541234567")
	must(t, "ActiveCoachesByPhone after a change", err)
	if len(refs) != 1 || refs[0].Coach.ID != c.ID || refs[0].StudioName != a.Name {
		t.Fatalf("ActiveCoachesByPhone after the phone changed = %+v, want only Avi of studio A", refs)
	}
	refs, err = st.Agent().ActiveCoachesByPhone(ctx, "+972549990000")
	if err != nil || len(refs) != 1 || refs[0].Coach.ID != typed.ID {
		t.Fatalf("ActiveCoachesByPhone(new phone) = %+v, %v", refs, err)
	}
	if refs, _ := st.Agent().ActiveCoachesByPhone(ctx, "+972541234568"); len(refs) != 0 {
		t.Fatalf("an inactive coach was found by phone: %+v", refs)
	}
	ref, err := st.ActiveCoachByID(ctx, c.ID)
	must(t, "ActiveCoachByID", err)
	if ref.StudioID != a.ID || ref.Coach.Name != "Avi K" {
		t.Fatalf("ActiveCoachByID = %+v", ref)
	}
	_, err = st.ActiveCoachByID(ctx, inactive.ID)
	mustNotFound(t, "ActiveCoachByID(inactive)", err)
}

// Tags.

func testTags(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	vip := domain.Tag{Name: "vip"}
	must(t, "CreateTag", ss.CreateTag(ctx, &vip))
	dup := domain.Tag{Name: "vip"}
	mustConflict(t, "CreateTag with a taken name", ss.CreateTag(ctx, &dup), vip.ID)
	same := domain.Tag{Name: "vip"}
	must(t, "the same name in another studio", st.Studio(b.ID).CreateTag(ctx, &same))

	tr := domain.Trainee{FirstName: "Tal", LastName: "Tag", Phone: newPhone(), Tags: []string{"vip", "morning"}}
	must(t, "CreateTrainee with tags", ss.CreateTrainee(ctx, &tr))
	list, err := ss.ListTags(ctx, page(50, 0))
	must(t, "ListTags", err)
	if list.Total != 2 || list.Items[0].Name != "morning" || list.Items[1].Name != "vip" {
		t.Fatalf("ListTags = %+v, want morning and vip", list)
	}

	mustNotFound(t, "DeleteTag from another studio", st.Studio(b.ID).DeleteTag(ctx, vip.ID))
	must(t, "DeleteTag", ss.DeleteTag(ctx, vip.ID))
	mustNotFound(t, "DeleteTag twice", ss.DeleteTag(ctx, vip.ID))
	got, _ := ss.GetTrainee(ctx, tr.ID)
	if !slices.Equal(got.Tags, []string{"morning"}) {
		t.Fatalf("trainee tags after deleting vip = %v, want [morning]", got.Tags)
	}
}
