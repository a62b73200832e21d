package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

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
