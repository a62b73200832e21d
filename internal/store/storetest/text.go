package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// acceptedText is text the lane lets through (internal/text) that an engine
// could still get wrong: line breaks and tabs, characters outside the
// Basic Multilingual Plane, right-to-left and combining text, LIKE and FTS
// metacharacters, quotes, U+FFFD and U+2028 typed on purpose, and long text.
var acceptedText = []string{
	"line one\nline two\ttabbed",
	"😀 Dana 👩🏽‍💻",
	"יעל כהן",
	"e\u0301cole", // e + combining acute
	`50% off_peak \ back`,
	`O'Brien "the" Quote`,
	"\ufffd replacement",
	"para\u2028sep",
	"zero\u200bwidth",
	strings.Repeat("ש", 1000),
}

// testText is what a store must do with any string the lane lets through:
// keep it exactly, compare it exactly, and find it by any piece; and what
// it must do with a string the lane refuses, should one reach it: refuse a
// search for it on every engine with ErrInvalidText, never match it
// against every row or fail inside the driver.
func testText(t *testing.T, st store.Store) {
	a := newStudio(t, st)
	ss := st.Studio(a.ID)
	for i, s := range acceptedText {
		if p := text.Problem(s); p != "" {
			t.Fatalf("acceptedText[%d] %s", i, p)
		}
		first := "T" + string(rune('a'+i)) + " " + s
		tr := domain.Trainee{FirstName: first, LastName: "Text", Phone: newPhone(), Goal: ptr(s)}
		must(t, "CreateTrainee", ss.CreateTrainee(ctx, &tr))
		got, err := ss.GetTrainee(ctx, tr.ID)
		must(t, "GetTrainee", err)
		if got.FirstName != first || got.Goal == nil || *got.Goal != s {
			t.Errorf("trainee %d came back %q goal %v, want %q", i, got.FirstName, got.Goal, s)
		}
		res, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: s, Page: page(200, 0)})
		must(t, "SearchTrainees", err)
		if ids := traineeIDs(res.Items); len(ids) != 1 || ids[0] != tr.ID {
			t.Errorf("searching %q found %v, want only %s", s, ids, tr.ID)
		}

		task := domain.Task{Title: s, Detail: ptr(s), Status: domain.TaskOpen, Source: domain.SourceAPI}
		must(t, "CreateTask", ss.CreateTask(ctx, &task))
		gotTask, err := ss.GetTask(ctx, task.ID)
		must(t, "GetTask", err)
		if gotTask.Title != s || gotTask.Detail == nil || *gotTask.Detail != s {
			t.Errorf("task %d came back %q / %v, want %q", i, gotTask.Title, gotTask.Detail, s)
		}

		tag := domain.Tag{Name: "tag " + s}
		must(t, "CreateTag", ss.CreateTag(ctx, &tag))
		byTag, err := ss.SearchTrainees(ctx, store.TraineeFilter{Tag: tag.Name, Page: page(10, 0)})
		must(t, "SearchTrainees by tag", err)
		if byTag.Total != 0 {
			t.Errorf("tag %q: %d trainees before any has it", tag.Name, byTag.Total)
		}
	}
	for _, bad := range []string{"a\x00", "\x00", "ab\x00", "\xff", "a\x1b", "\xed\xa0\x80"} {
		for name, f := range map[string]store.TraineeFilter{
			"q": {Q: bad}, "tag": {Tag: bad}, "coachId": {CoachID: bad},
		} {
			f.Page = page(10, 0)
			res, err := ss.SearchTrainees(ctx, f)
			if !errors.Is(err, store.ErrInvalidText) {
				t.Errorf("SearchTrainees with %s %q: %d trainees, err %v; want ErrInvalidText", name, bad, res.Total, err)
			}
		}
	}
}
