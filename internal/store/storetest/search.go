package storetest

import (
	"slices"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// testTraineeSearchWords: the words of a query match in any order across
// first and last name, hyphens and spaces alike; a query that matches
// nobody has near matches, the same on every engine, in English and Hebrew.
func testTraineeSearchWords(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	mk := func(first, last string, status string) domain.Trainee {
		tr := domain.Trainee{FirstName: first, LastName: last, Phone: newPhone(), Status: status}
		must(t, "CreateTrainee "+first+" "+last, ss.CreateTrainee(ctx, &tr))
		return tr
	}
	daniel := mk("Daniel", "Levi", "")
	noa := mk("נועה", "כהן", "")
	avi := mk("Avi", "Ben-David", "")
	dana := mk("Dana", "Goldberg", "")
	gold := mk("Yossi", "Goldman", domain.TraineePaused)
	maya := mk("מאיה", "בן־דוד", "") // Hebrew maqaf
	spaced := mk("Tal", "Bar  Lev", "")
	// Another studio's Goldberg is never a near match here.
	other := domain.Trainee{FirstName: "Dana", LastName: "Goldberg", Phone: newPhone()}
	must(t, "CreateTrainee in b", st.Studio(b.ID).CreateTrainee(ctx, &other))

	exact := []struct {
		q    string
		want []string // in order: last name, first name, id
	}{
		{"Daniel Levi", []string{daniel.ID}},
		{"Levi Daniel", []string{daniel.ID}},
		{"levi   DANIEL", []string{daniel.ID}},
		{" lev dan ", []string{daniel.ID}},
		{"כהן נועה", []string{noa.ID}},
		{"נועה כהן", []string{noa.ID}},
		{"Ben David", []string{avi.ID}},
		{"Ben-David", []string{avi.ID}},
		{"ben-david avi", []string{avi.ID}},
		{"avi-ben david", []string{avi.ID}},
		{"בן דוד", []string{maya.ID}},
		{"בן-דוד מאיה", []string{maya.ID}},
		{"Bar Lev", []string{spaced.ID}},
		{"bar-lev tal", []string{spaced.ID}},
		{"Dana  Goldberg", []string{dana.ID}},
		{"gold", []string{dana.ID, gold.ID}},
		{"gold dana", []string{dana.ID}},
		{"Levi Dana", nil}, // every word must match the one trainee
		{"Goldburg", nil},
	}
	for _, tc := range exact {
		got, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: tc.q, Page: page(50, 0)})
		must(t, tc.q, err)
		if got.Total != len(tc.want) || !slices.Equal(traineeIDs(got.Items), tc.want) && len(tc.want) > 0 || len(tc.want) == 0 && len(got.Items) != 0 {
			t.Errorf("search %q: total %d items %v, want %v", tc.q, got.Total, traineeIDs(got.Items), tc.want)
		}
	}

	near := []struct {
		q    string
		f    store.TraineeFilter
		want []string // most similar first
	}{
		{"Goldburg", store.TraineeFilter{}, []string{dana.ID, gold.ID}},
		{"Dana Goldburg", store.TraineeFilter{}, []string{dana.ID}}, // Goldman is too far from the whole name
		{"Goldburg", store.TraineeFilter{Status: domain.TraineePaused}, []string{gold.ID}},
		{"Danial Levy", store.TraineeFilter{}, []string{daniel.ID}},
		{"Ben Davis", store.TraineeFilter{}, []string{avi.ID}},
		{"כהנ נועה", store.TraineeFilter{}, []string{noa.ID}},
		{"בן דויד", store.TraineeFilter{}, []string{maya.ID}},
		{"zzzz qqqq", store.TraineeFilter{}, nil},
		{"", store.TraineeFilter{}, nil},
	}
	for _, tc := range near {
		tc.f.Q = tc.q
		got, err := ss.NearTrainees(ctx, tc.f, 5)
		must(t, "near "+tc.q, err)
		if !slices.Equal(traineeIDs(got), tc.want) && (len(tc.want) > 0 || len(got) > 0) {
			t.Errorf("near %q %+v: %v, want %v", tc.q, tc.f, traineeIDs(got), tc.want)
		}
	}
	// The limit holds, and near matches carry their tags and coaches.
	if got, _ := ss.NearTrainees(ctx, store.TraineeFilter{Q: "Goldburg"}, 1); len(got) != 1 || got[0].ID != dana.ID || got[0].Tags == nil {
		t.Errorf("near with limit 1: %v", traineeIDs(got))
	}

	// A renamed trainee is near by the new name only; a deleted one not at all.
	dana.LastName = "Rosen"
	must(t, "rename", ss.UpdateTrainee(ctx, &dana))
	if got, _ := ss.NearTrainees(ctx, store.TraineeFilter{Q: "Goldburg"}, 5); !slices.Equal(traineeIDs(got), []string{gold.ID}) {
		t.Errorf("near after rename: %v, want only %s", traineeIDs(got), gold.ID)
	}
	if got, _ := ss.NearTrainees(ctx, store.TraineeFilter{Q: "Rosan"}, 5); !slices.Equal(traineeIDs(got), []string{dana.ID}) {
		t.Errorf("near by the new name: %v, want %s", traineeIDs(got), dana.ID)
	}
	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, gold.ID))
	if got, _ := ss.NearTrainees(ctx, store.TraineeFilter{Q: "Goldmann"}, 5); len(got) != 0 {
		t.Errorf("deleted trainee is still near: %v", traineeIDs(got))
	}
}

// testTraineeSearchSounds: a name found in the other script or another
// spelling by its sound keys, with the filters, paging and total of any
// search; a rename rewrites the keys and another studio's name is never
// found.
func testTraineeSearchSounds(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	mk := func(first, last, status string) domain.Trainee {
		tr := domain.Trainee{FirstName: first, LastName: last, Phone: newPhone(), Status: status}
		must(t, "CreateTrainee "+first+" "+last, ss.CreateTrainee(ctx, &tr))
		return tr
	}
	tamar := mk("תמר", "אברהם", "")
	chen := mk("Chen", "Cohen", "")
	abraham := mk("Yossi", "Abraham", domain.TraineePaused)
	other := domain.Trainee{FirstName: "Tamar", LastName: "Levi", Phone: newPhone()}
	must(t, "CreateTrainee in b", st.Studio(b.ID).CreateTrainee(ctx, &other))
	for _, tc := range []struct {
		q      string
		status string
		want   []string
	}{
		{"Tamar", "", []string{tamar.ID}},
		{"tamar avraham", "", []string{tamar.ID}},
		{"Avraham", "", []string{abraham.ID, tamar.ID}},
		{"Avraham", domain.TraineePaused, []string{abraham.ID}},
		{"חן כהן", "", []string{chen.ID}},
		{"Hen", "", []string{chen.ID}},
		{"Tamar Cohen", "", nil},
		{"aaa", "", nil}, // no consonant: no key, no match
	} {
		got, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: tc.q, Sounds: true, Status: tc.status, Page: page(50, 0)})
		must(t, tc.q, err)
		slices.Sort(tc.want)
		ids := traineeIDs(got.Items)
		slices.Sort(ids)
		if got.Total != len(tc.want) || !slices.Equal(ids, tc.want) && len(tc.want) > 0 || len(tc.want) == 0 && len(ids) != 0 {
			t.Errorf("sounds %q (status %q): %v (total %d), want %v", tc.q, tc.status, ids, got.Total, tc.want)
		}
	}
	tamar.FirstName = "Dana"
	must(t, "UpdateTrainee", ss.UpdateTrainee(ctx, &tamar))
	if got, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "Tamar", Sounds: true, Page: page(50, 0)}); got.Total != 0 {
		t.Errorf("renamed trainee still found by the old name: %v", traineeIDs(got.Items))
	}
	if got, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "דנה", Sounds: true, Page: page(50, 0)}); !slices.Equal(traineeIDs(got.Items), []string{tamar.ID}) {
		t.Errorf("renamed trainee not found by the new name: %v", traineeIDs(got.Items))
	}
}
