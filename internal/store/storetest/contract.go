package storetest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
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

// Run is the contract every engine passes. open is called once; each
// subtest works in studios of its own, so they share the database the way
// studios do in production.
func Run(t *testing.T, open Opener) {
	t.Run("Clock", func(t *testing.T) { testClock(t, open) })
	st := open(t, store.WithClock(StepClock()))
	tests := []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"Studios", testStudios},
		{"APIKeys", testAPIKeys},
		{"CredentialsEpoch", testCredentialsEpoch},
		{"Audit", testAudit},
		{"Coaches", testCoaches},
		{"Tags", testTags},
		{"Trainees", testTrainees},
		{"TraineeSearch", testTraineeSearch},
		{"TraineeSearchWords", testTraineeSearchWords},
		{"DeleteTraineeCascades", testDeleteTraineeCascades},
		{"Products", testProducts},
		{"Subscriptions", testSubscriptions},
		{"Programs", testPrograms},
		{"Forms", testForms},
		{"DueForms", testDueForms},
		{"Weights", testWeights},
		{"Tasks", testTasks},
		{"Notifications", testNotifications},
		{"Transactions", testTransactions},
		{"Tenancy", testTenancy},
		{"Idempotency", testIdempotency},
		{"PlanLimits", testPlanLimits},
		{"Agent", testAgent},
		{"AgentProposals", testAgentProposals},
		{"OAuth", testOAuth},
		{"Exercises", testExercises},
		{"Login", testLogin},
		{"Codes", testCodes},
		{"Sessions", testSessions},
		{"Health", testHealth},
		{"Roster", testRoster},
		{"Text", testText},
		{"TraineeVoice", testTraineeVoice},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
	}
}

// Helpers.

var ctx = context.Background()

func newStudio(t *testing.T, st store.Store) domain.Studio {
	t.Helper()
	s := domain.Studio{Name: "Studio " + randomHex(3), Slug: "s-" + randomHex(6)}
	if err := st.CreateStudio(ctx, &s); err != nil {
		t.Fatalf("CreateStudio: %v", err)
	}
	return s
}

// newPhone returns a random Israeli mobile number (+97258…, a prefix the
// fixed numbers of these tests do not use).
func newPhone() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	n := (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) % 10_000_000
	return fmt.Sprintf("+97258%07d", n)
}

func newTrainee(t *testing.T, ss store.StudioStore, first, last string) domain.Trainee {
	t.Helper()
	tr := domain.Trainee{FirstName: first, LastName: last, Phone: newPhone()}
	if err := ss.CreateTrainee(ctx, &tr); err != nil {
		t.Fatalf("CreateTrainee %s %s: %v", first, last, err)
	}
	return tr
}

func ptr[T any](v T) *T { return &v }

func mustNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: got %v, want ErrNotFound", what, err)
	}
}

func mustConflict(t *testing.T, what string, err error, existingID string) {
	t.Helper()
	var ce *store.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: got %v, want a ConflictError", what, err)
	}
	if existingID != "" && ce.ExistingID != existingID {
		t.Fatalf("%s: conflict names %q, want %q", what, ce.ExistingID, existingID)
	}
	if ce.Message == "" {
		t.Fatalf("%s: conflict has no message", what)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func page(limit, offset int) store.Page { return store.Page{Limit: limit, Offset: offset} }

func sameTime(a, b time.Time) bool { return a.UnixMilli() == b.UnixMilli() }

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
	c := domain.Coach{Name: "Avi", Phone: ptr("+972541234567"), Email: ptr("avi@example.com"), Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &c))
	inactive := domain.Coach{Name: "Bella", Phone: ptr("+972541234568"), Active: false}
	must(t, "CreateCoach inactive", ss.CreateCoach(ctx, &inactive))
	noPhone := domain.Coach{Name: "Carmel", Active: true}
	must(t, "CreateCoach without phone", ss.CreateCoach(ctx, &noPhone))

	got, err := ss.GetCoach(ctx, c.ID)
	must(t, "GetCoach", err)
	if got.Name != "Avi" || *got.Phone != "+972541234567" || *got.Email != "avi@example.com" || !got.Active || got.LastActiveAt != nil {
		t.Fatalf("GetCoach = %+v", got)
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
	c.Name = "Avi K"
	must(t, "UpdateCoach", ss.UpdateCoach(ctx, &c))
	got, _ = ss.GetCoach(ctx, c.ID)
	if got.Name != "Avi K" || got.LastActiveAt == nil || !sameTime(*got.LastActiveAt, seen) {
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

// Trainees.

func testTrainees(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	c1 := domain.Coach{Name: "One", Active: true}
	c2 := domain.Coach{Name: "Two", Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &c1))
	must(t, "CreateCoach", ss.CreateCoach(ctx, &c2))
	foreignCoach := domain.Coach{Name: "Foreign", Active: true}
	must(t, "CreateCoach b", st.Studio(b.ID).CreateCoach(ctx, &foreignCoach))

	tr := domain.Trainee{
		FirstName: "Maya", LastName: "Ben-David", Phone: newPhone(), Email: ptr("maya@example.com"),
		BirthDate: ptr("1990-04-12"), Gender: ptr("female"), HeightCm: ptr(165.5), WeightKg: ptr(61.2),
		Goal: ptr("run 10k"), StepsGoal: ptr(9000), StartedOn: ptr("2026-01-05"),
		Tags: []string{"vip", "morning", "vip", " "}, CoachIDs: []string{c2.ID, c1.ID},
	}
	must(t, "CreateTrainee", ss.CreateTrainee(ctx, &tr))
	if !strings.HasPrefix(tr.ID, "trn_") || tr.Status != domain.TraineeActive || tr.CreatedAt.IsZero() || !tr.UpdatedAt.Equal(tr.CreatedAt) {
		t.Fatalf("CreateTrainee filled %+v", tr)
	}
	got, err := ss.GetTrainee(ctx, tr.ID)
	must(t, "GetTrainee", err)
	wantCoaches := []string{c1.ID, c2.ID}
	slices.Sort(wantCoaches)
	if got.FirstName != "Maya" || got.LastName != "Ben-David" || got.Phone != tr.Phone || *got.Email != "maya@example.com" ||
		*got.BirthDate != "1990-04-12" || *got.Gender != "female" || *got.HeightCm != 165.5 || *got.WeightKg != 61.2 ||
		*got.Goal != "run 10k" || *got.StepsGoal != 9000 || *got.StartedOn != "2026-01-05" ||
		!slices.Equal(got.Tags, []string{"morning", "vip"}) || !slices.Equal(got.CoachIDs, wantCoaches) ||
		!sameTime(got.CreatedAt, tr.CreatedAt) {
		t.Fatalf("GetTrainee = %+v", got)
	}
	byPhone, err := ss.TraineeByPhone(ctx, tr.Phone)
	must(t, "TraineeByPhone", err)
	if byPhone.ID != tr.ID || !slices.Equal(byPhone.Tags, []string{"morning", "vip"}) || !slices.Equal(byPhone.CoachIDs, wantCoaches) {
		t.Fatalf("TraineeByPhone = %+v", byPhone)
	}
	// Without links the lists are empty, not null (the answer's shape), by
	// id and by phone alike.
	bare := newTrainee(t, ss, "Bare", "Links")
	for what, get := range map[string]func() (domain.Trainee, error){
		"GetTrainee":     func() (domain.Trainee, error) { return ss.GetTrainee(ctx, bare.ID) },
		"TraineeByPhone": func() (domain.Trainee, error) { return ss.TraineeByPhone(ctx, bare.Phone) },
	} {
		got, err := get()
		must(t, what+" without links", err)
		if got.ID != bare.ID || got.Tags == nil || got.CoachIDs == nil || len(got.Tags)+len(got.CoachIDs) != 0 {
			t.Fatalf("%s without links = %+v; want empty, non-nil Tags and CoachIDs", what, got)
		}
	}
	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, bare.ID)) // the counts below are of tr alone
	_, err = ss.TraineeByPhone(ctx, "+972599999999")
	mustNotFound(t, "TraineeByPhone(unknown)", err)
	_, err = st.Studio(b.ID).TraineeByPhone(ctx, tr.Phone)
	mustNotFound(t, "TraineeByPhone from another studio", err)

	// The same phone: a conflict here, fine in another studio.
	dup := domain.Trainee{FirstName: "Other", LastName: "Person", Phone: tr.Phone}
	mustConflict(t, "CreateTrainee with a taken phone", ss.CreateTrainee(ctx, &dup), tr.ID)
	elsewhere := domain.Trainee{FirstName: "Other", LastName: "Person", Phone: tr.Phone}
	must(t, "the same phone in another studio", st.Studio(b.ID).CreateTrainee(ctx, &elsewhere))

	bad := domain.Trainee{FirstName: "Bad", LastName: "Coach", Phone: newPhone(), CoachIDs: []string{foreignCoach.ID}}
	mustNotFound(t, "CreateTrainee with another studio's coach", ss.CreateTrainee(ctx, &bad))
	_, err = ss.GetTrainee(ctx, bad.ID)
	mustNotFound(t, "the failed create left no trainee", err)

	// Update replaces the lists.
	// The caller's UpdatedAt is kept (the store stamps only a zero one;
	// testClock covers that).
	later := got.UpdatedAt.Add(time.Second)
	got.UpdatedAt = later
	got.LastName = "Cohen"
	got.Tags = []string{"evening"}
	got.CoachIDs = []string{c1.ID}
	got.Email = nil
	got.Status = domain.TraineePaused
	must(t, "UpdateTrainee", ss.UpdateTrainee(ctx, &got))
	upd, _ := ss.GetTrainee(ctx, tr.ID)
	if upd.LastName != "Cohen" || upd.Email != nil || upd.Status != domain.TraineePaused ||
		!slices.Equal(upd.Tags, []string{"evening"}) || !slices.Equal(upd.CoachIDs, []string{c1.ID}) ||
		!sameTime(upd.UpdatedAt, later) || !sameTime(upd.CreatedAt, tr.CreatedAt) {
		t.Fatalf("after UpdateTrainee = %+v", upd)
	}
	other := newTrainee(t, ss, "Second", "Person")
	other.Phone = tr.Phone
	mustConflict(t, "UpdateTrainee to a taken phone", ss.UpdateTrainee(ctx, &other), tr.ID)
	ghost := upd
	ghost.ID = "trn_missing"
	mustNotFound(t, "UpdateTrainee(missing)", ss.UpdateTrainee(ctx, &ghost))
	mustNotFound(t, "UpdateTrainee from another studio", st.Studio(b.ID).UpdateTrainee(ctx, &upd))

	n, err := ss.CountActiveTrainees(ctx)
	must(t, "CountActiveTrainees", err)
	if n != 1 { // Maya is paused now; Second is active
		t.Fatalf("CountActiveTrainees = %d, want 1", n)
	}

	mustNotFound(t, "DeleteTrainee from another studio", st.Studio(b.ID).DeleteTrainee(ctx, tr.ID))
	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, tr.ID))
	_, err = ss.GetTrainee(ctx, tr.ID)
	mustNotFound(t, "GetTrainee after delete", err)
	mustNotFound(t, "DeleteTrainee twice", ss.DeleteTrainee(ctx, tr.ID))
	// The phone is free again.
	again := domain.Trainee{FirstName: "Maya", LastName: "Again", Phone: tr.Phone}
	must(t, "CreateTrainee with a freed phone", ss.CreateTrainee(ctx, &again))
}

func traineeIDs(ts []domain.Trainee) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func testTraineeSearch(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	coach := domain.Coach{Name: "Coach", Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &coach))
	mk := func(first, last, phone string, email *string, status string, tags []string, coaches []string) domain.Trainee {
		tr := domain.Trainee{FirstName: first, LastName: last, Phone: phone, Email: email, Status: status, Tags: tags, CoachIDs: coaches}
		must(t, "CreateTrainee "+first, ss.CreateTrainee(ctx, &tr))
		return tr
	}
	dana := mk("Dana", "Cohen", "+972501234567", ptr("Dana.Cohen@Example.com"), "", []string{"vip"}, []string{coach.ID})
	danny := mk("Danny", "Levi", "+972529876543", nil, domain.TraineePaused, nil, nil)
	noa := mk("Noa", "Cohenim", "+972541112233", ptr("noa@run.io"), "", []string{"vip"}, nil)
	hebrew := mk("יעל", "כהן", "+972533334444", nil, "", nil, []string{coach.ID})
	us := mk("John", "Smith", "+12015550123", ptr("js1987@mail.com"), "", nil, nil)
	// Another studio's Dana must never appear.
	foreign := domain.Trainee{FirstName: "Dana", LastName: "Cohen", Phone: "+972501234567"}
	must(t, "CreateTrainee in b", st.Studio(b.ID).CreateTrainee(ctx, &foreign))

	cases := []struct {
		name string
		f    store.TraineeFilter
		want []string // in order: lastName, firstName, id
	}{
		{"everyone in order", store.TraineeFilter{}, []string{dana.ID, noa.ID, danny.ID, us.ID, hebrew.ID}},
		{"first name substring, any case", store.TraineeFilter{Q: "DAN"}, []string{dana.ID, danny.ID}},
		{"last name substring", store.TraineeFilter{Q: "ohen"}, []string{dana.ID, noa.ID}},
		{"first last", store.TraineeFilter{Q: "dana coh"}, []string{dana.ID}},
		{"two letters fall back to a scan", store.TraineeFilter{Q: "Vi"}, []string{danny.ID}},
		{"one letter", store.TraineeFilter{Q: "y"}, []string{danny.ID}},
		{"national phone prefix", store.TraineeFilter{Q: "0501234"}, []string{dana.ID}},
		{"phone digits in the middle", store.TraineeFilter{Q: "1234567"}, []string{dana.ID}},
		{"two phone digits", store.TraineeFilter{Q: "65"}, []string{danny.ID}},
		{"digits of an email", store.TraineeFilter{Q: "1987"}, []string{us.ID}},
		{"national phone typed with dashes", store.TraineeFilter{Q: "052-987"}, []string{danny.ID}},
		{"E.164 digits", store.TraineeFilter{Q: "972541112"}, []string{noa.ID}},
		{"E.164 with plus and spaces", store.TraineeFilter{Q: "+972 54 111"}, []string{noa.ID}},
		{"US national digits", store.TraineeFilter{Q: "2015550"}, []string{us.ID}},
		{"email, any case", store.TraineeFilter{Q: "dana.cohen@example"}, []string{dana.ID}},
		{"email domain", store.TraineeFilter{Q: "RUN.IO"}, []string{noa.ID}},
		{"hebrew", store.TraineeFilter{Q: "כהן"}, []string{hebrew.ID}},
		{"like wildcards are literal", store.TraineeFilter{Q: "%"}, nil},
		{"underscore is literal", store.TraineeFilter{Q: "a_a"}, nil},
		{"quotes are literal", store.TraineeFilter{Q: `"dan`}, nil},
		{"no match", store.TraineeFilter{Q: "zzzz"}, nil},
		{"status", store.TraineeFilter{Status: domain.TraineePaused}, []string{danny.ID}},
		{"q and status", store.TraineeFilter{Q: "dan", Status: domain.TraineeActive}, []string{dana.ID}},
		{"coach", store.TraineeFilter{CoachID: coach.ID}, []string{dana.ID, hebrew.ID}},
		{"tag", store.TraineeFilter{Tag: "vip"}, []string{dana.ID, noa.ID}},
		{"tag and q", store.TraineeFilter{Tag: "vip", Q: "noa"}, []string{noa.ID}},
		{"unknown tag", store.TraineeFilter{Tag: "nope"}, nil},
		{"another studio's coach", store.TraineeFilter{CoachID: "coa_missing"}, nil},
	}
	for _, tc := range cases {
		tc.f.Page = page(50, 0)
		got, err := ss.SearchTrainees(ctx, tc.f)
		must(t, tc.name, err)
		if got.Total != len(tc.want) || !slices.Equal(traineeIDs(got.Items), tc.want) && len(tc.want) > 0 || len(tc.want) == 0 && len(got.Items) != 0 {
			t.Errorf("%s: total %d items %v, want %v", tc.name, got.Total, traineeIDs(got.Items), tc.want)
		}
	}

	// The page carries tags and coaches.
	got, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "dana", Page: page(10, 0)})
	if len(got.Items) != 1 || !slices.Equal(got.Items[0].Tags, []string{"vip"}) || !slices.Equal(got.Items[0].CoachIDs, []string{coach.ID}) {
		t.Fatalf("search result links = %+v", got.Items)
	}

	// Paging keeps the exact total.
	p1, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Page: page(2, 0)})
	p3, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Page: page(2, 4)})
	past, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Page: page(2, 10)})
	if p1.Total != 5 || len(p1.Items) != 2 || p3.Total != 5 || len(p3.Items) != 1 || p3.Items[0].ID != hebrew.ID || past.Total != 5 || len(past.Items) != 0 {
		t.Fatalf("paging: %d/%d, %d/%d, %d/%d", p1.Total, len(p1.Items), p3.Total, len(p3.Items), past.Total, len(past.Items))
	}

	// Past the end of a matched list the total stays exact.
	pastMatch, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "dan", Page: page(2, 5)})
	if pastMatch.Total != 2 || len(pastMatch.Items) != 0 {
		t.Fatalf("q past the end: total %d items %d, want 2 and 0", pastMatch.Total, len(pastMatch.Items))
	}
	secondMatch, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "dan", Page: page(1, 1)})
	if secondMatch.Total != 2 || len(secondMatch.Items) != 1 || secondMatch.Items[0].ID != danny.ID {
		t.Fatalf("q second page: total %d items %v, want 2 and [%s]", secondMatch.Total, traineeIDs(secondMatch.Items), danny.ID)
	}

	// createdAfter / updatedAfter.
	// The last write before the cut; Run's clock steps, so what follows is after it.
	cut := foreign.CreatedAt
	late := mk("Late", "Comer", "+972507777777", nil, "", nil, nil)
	after, _ := ss.SearchTrainees(ctx, store.TraineeFilter{CreatedAfter: &cut, Page: page(50, 0)})
	if after.Total != 1 || after.Items[0].ID != late.ID {
		t.Fatalf("createdAfter = %v, want only %s", traineeIDs(after.Items), late.ID)
	}
	danny.Goal = ptr("strength")
	danny.UpdatedAt = time.Time{} // the store stamps its clock
	must(t, "UpdateTrainee", ss.UpdateTrainee(ctx, &danny))
	upd, _ := ss.SearchTrainees(ctx, store.TraineeFilter{UpdatedAfter: &cut, Page: page(50, 0)})
	if upd.Total != 2 || !slices.Contains(traineeIDs(upd.Items), danny.ID) {
		t.Fatalf("updatedAfter = %v, want Late and Danny", traineeIDs(upd.Items))
	}

	// A renamed trainee is found by the new name only (the index follows).
	danny.FirstName = "Yonatan"
	must(t, "rename", ss.UpdateTrainee(ctx, &danny))
	if r, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "danny", Page: page(5, 0)}); r.Total != 0 {
		t.Fatalf("old name still matches: %v", traineeIDs(r.Items))
	}
	if r, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "yonat", Page: page(5, 0)}); r.Total != 1 {
		t.Fatalf("new name does not match")
	}
	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, noa.ID))
	if r, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "noa", Page: page(5, 0)}); r.Total != 0 {
		t.Fatalf("deleted trainee still matches")
	}
}

// testDeleteTraineeCascades deletes a trainee with rows in every child table.
func testDeleteTraineeCascades(t *testing.T, st store.Store) {
	a := newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, w.trainee.ID))
	_, err := ss.GetSubscription(ctx, w.sub.ID)
	mustNotFound(t, "subscription after trainee delete", err)
	_, err = ss.GetFormAssignment(ctx, w.assignment.ID)
	mustNotFound(t, "form assignment after trainee delete", err)
	_, err = ss.GetTask(ctx, w.task.ID)
	mustNotFound(t, "task about the trainee after delete", err)
	_, err = ss.ListWeights(ctx, w.trainee.ID, page(10, 0))
	mustNotFound(t, "weights of a deleted trainee", err)
	// What the trainee referenced stays.
	if _, err := ss.GetProduct(ctx, w.product.ID); err != nil {
		t.Fatalf("product gone with the trainee: %v", err)
	}
	if _, err := ss.GetFormTemplate(ctx, w.form.ID); err != nil {
		t.Fatalf("form template gone with the trainee: %v", err)
	}
}

// world is one of each row, all tied to one trainee.
type world struct {
	coach      domain.Coach
	tag        domain.Tag
	trainee    domain.Trainee
	product    domain.Product
	sub        domain.Subscription
	template   domain.ProgramTemplate
	program    domain.Program
	form       domain.FormTemplate
	assignment domain.FormAssignment
	response   domain.FormResponse
	weight     domain.Weight
	task       domain.Task
	note       domain.Notification
}

func seedWorld(t *testing.T, ss store.StudioStore) world {
	t.Helper()
	var w world
	w.coach = domain.Coach{Name: "Coach " + randomHex(2), Phone: ptr(newPhone()), Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &w.coach))
	w.tag = domain.Tag{Name: "tag-" + randomHex(3)}
	must(t, "CreateTag", ss.CreateTag(ctx, &w.tag))
	w.trainee = domain.Trainee{FirstName: "World", LastName: "Trainee", Phone: newPhone(), Tags: []string{w.tag.Name}, CoachIDs: []string{w.coach.ID}}
	must(t, "CreateTrainee", ss.CreateTrainee(ctx, &w.trainee))
	w.product = domain.Product{Name: "Monthly", Price: ptr(350.0), Currency: "ILS", DurationDays: ptr(30), Active: true}
	must(t, "CreateProduct", ss.CreateProduct(ctx, &w.product))
	w.sub = domain.Subscription{TraineeID: w.trainee.ID, ProductID: w.product.ID, StartedOn: "2026-01-01", EndsOn: ptr("2026-01-30"), Price: ptr(350.0)}
	must(t, "CreateSubscription", ss.CreateSubscription(ctx, &w.sub))
	w.template = domain.ProgramTemplate{Name: "Strength", Weeks: ptr(8)}
	must(t, "CreateProgramTemplate", ss.CreateProgramTemplate(ctx, &w.template))
	w.program = domain.Program{TraineeID: w.trainee.ID, TemplateID: w.template.ID, StartsOn: "2026-01-02"}
	must(t, "CreateProgram", ss.CreateProgram(ctx, &w.program))
	w.form = domain.FormTemplate{Name: "Check-in", Fields: []domain.FormField{{Key: "sleep", Label: "Sleep", Type: "scale"}}}
	must(t, "CreateFormTemplate", ss.CreateFormTemplate(ctx, &w.form))
	w.assignment = domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, Notify: ptr(false)}
	must(t, "CreateFormAssignment", ss.CreateFormAssignment(ctx, &w.assignment))
	w.response = domain.FormResponse{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, AssignmentID: &w.assignment.ID, Answers: json.RawMessage(`{"sleep":4}`)}
	must(t, "CreateFormResponse", ss.CreateFormResponse(ctx, &w.response))
	w.weight = domain.Weight{TraineeID: w.trainee.ID, WeightKg: 70.5}
	must(t, "CreateWeight", ss.CreateWeight(ctx, &w.weight))
	w.task = domain.Task{Title: "Call", ClientID: &w.trainee.ID, CoachID: &w.coach.ID, Priority: 2}
	must(t, "CreateTask", ss.CreateTask(ctx, &w.task))
	w.note = domain.Notification{TraineeID: w.trainee.ID, Kind: domain.NotifyWelcome, Source: domain.SourceAPI}
	must(t, "AddNotification", ss.AddNotification(ctx, &w.note))
	return w
}
