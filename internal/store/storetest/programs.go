package storetest

import (
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

func testPrograms(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))

	mobility := domain.ProgramTemplate{Name: "Mobility", Description: ptr("daily 15 minutes")}
	must(t, "CreateProgramTemplate", ss.CreateProgramTemplate(ctx, &mobility))
	got, err := ss.GetProgramTemplate(ctx, mobility.ID)
	must(t, "GetProgramTemplate", err)
	if got.Name != "Mobility" || *got.Description != "daily 15 minutes" || got.Weeks != nil {
		t.Fatalf("GetProgramTemplate = %+v", got)
	}
	_, err = st.Studio(b.ID).GetProgramTemplate(ctx, mobility.ID)
	mustNotFound(t, "GetProgramTemplate from another studio", err)
	list, err := ss.ListProgramTemplates(ctx, "", page(50, 0))
	must(t, "ListProgramTemplates", err)
	if list.Total != 2 || list.Items[0].ID != mobility.ID || list.Items[1].ID != w.template.ID {
		t.Fatalf("ListProgramTemplates = %+v", list)
	}
	list, _ = ss.ListProgramTemplates(ctx, "streng", page(50, 0))
	if list.Total != 1 || list.Items[0].ID != w.template.ID {
		t.Fatalf("ListProgramTemplates(streng) = %+v", list)
	}

	if w.program.Name != "Strength" || w.program.Status != domain.ProgramActive {
		t.Fatalf("CreateProgram filled %+v, want the template's name, active", w.program)
	}
	must(t, "ReplaceActivePrograms", ss.ReplaceActivePrograms(ctx, w.trainee.ID))
	next := domain.Program{TraineeID: w.trainee.ID, TemplateID: mobility.ID, StartsOn: "2026-03-01"}
	must(t, "CreateProgram", ss.CreateProgram(ctx, &next))
	programs, err := ss.ListPrograms(ctx, w.trainee.ID)
	must(t, "ListPrograms", err)
	if len(programs) != 2 || programs[0].ID != next.ID || programs[0].Status != domain.ProgramActive ||
		programs[1].ID != w.program.ID || programs[1].Status != domain.ProgramReplaced {
		t.Fatalf("ListPrograms = %+v", programs)
	}
	_, err = ss.ListPrograms(ctx, wb.trainee.ID)
	mustNotFound(t, "ListPrograms of another studio's trainee", err)
	mustNotFound(t, "ReplaceActivePrograms of another studio's trainee", ss.ReplaceActivePrograms(ctx, wb.trainee.ID))
	foreign := domain.Program{TraineeID: w.trainee.ID, TemplateID: wb.template.ID, StartsOn: "2026-03-01"}
	mustNotFound(t, "CreateProgram from another studio's template", ss.CreateProgram(ctx, &foreign))
	// Other studio's programs were untouched by the replace above.
	theirs, _ := st.Studio(b.ID).ListPrograms(ctx, wb.trainee.ID)
	if len(theirs) != 1 || theirs[0].Status != domain.ProgramActive {
		t.Fatalf("studio b's programs = %+v", theirs)
	}
}
