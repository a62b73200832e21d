package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

func testTasks(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))

	due := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Millisecond)
	call := domain.Task{Title: "Review diet", Detail: ptr("check macros"), DueAt: &due, Priority: 5, Source: domain.SourceMCP}
	must(t, "CreateTask", ss.CreateTask(ctx, &call))
	if call.Status != domain.TaskOpen || call.Source != domain.SourceMCP || !call.UpdatedAt.Equal(call.CreatedAt) {
		t.Fatalf("CreateTask filled %+v", call)
	}
	got, err := ss.GetTask(ctx, call.ID)
	must(t, "GetTask", err)
	if got.Title != "Review diet" || *got.Detail != "check macros" || !sameTime(*got.DueAt, due) || got.Priority != 5 || got.ClientID != nil || got.CoachID != nil {
		t.Fatalf("GetTask = %+v", got)
	}
	if w.task.Source != domain.SourceAPI {
		t.Fatalf("default source = %s, want api", w.task.Source)
	}

	all, err := ss.ListTasks(ctx, store.TaskFilter{Page: page(50, 0)})
	must(t, "ListTasks", err)
	if all.Total != 2 || all.Items[0].ID != call.ID || all.Items[1].ID != w.task.ID {
		t.Fatalf("ListTasks (newest first) = %+v", all)
	}
	byClient, _ := ss.ListTasks(ctx, store.TaskFilter{ClientID: w.trainee.ID, Page: page(50, 0)})
	byCoach, _ := ss.ListTasks(ctx, store.TaskFilter{CoachID: w.coach.ID, Page: page(50, 0)})
	if byClient.Total != 1 || byClient.Items[0].ID != w.task.ID || byCoach.Total != 1 || byCoach.Items[0].ID != w.task.ID {
		t.Fatalf("ListTasks by client %+v, by coach %+v", byClient, byCoach)
	}

	snooze := time.Now().UTC().Add(time.Hour).Truncate(time.Millisecond)
	got.Status = domain.TaskSnoozed
	got.SnoozeUntil = &snooze
	got.Priority = 1
	got.UpdatedAt = got.CreatedAt.Add(time.Second) // kept: the caller's clock
	must(t, "UpdateTask", ss.UpdateTask(ctx, &got))
	upd, _ := ss.GetTask(ctx, call.ID)
	if upd.Status != domain.TaskSnoozed || !sameTime(*upd.SnoozeUntil, snooze) || upd.Priority != 1 || !sameTime(upd.UpdatedAt, got.UpdatedAt) {
		t.Fatalf("after UpdateTask = %+v", upd)
	}
	snoozed, _ := ss.ListTasks(ctx, store.TaskFilter{Status: domain.TaskSnoozed, Page: page(50, 0)})
	if snoozed.Total != 1 || snoozed.Items[0].ID != call.ID {
		t.Fatalf("ListTasks(snoozed) = %+v", snoozed)
	}

	_, err = st.Studio(b.ID).GetTask(ctx, call.ID)
	mustNotFound(t, "GetTask from another studio", err)
	mustNotFound(t, "UpdateTask from another studio", st.Studio(b.ID).UpdateTask(ctx, &upd))
	bad := domain.Task{Title: "x", ClientID: &wb.trainee.ID}
	mustNotFound(t, "CreateTask about another studio's trainee", ss.CreateTask(ctx, &bad))
	bad = domain.Task{Title: "x", CoachID: &wb.coach.ID}
	mustNotFound(t, "CreateTask for another studio's coach", ss.CreateTask(ctx, &bad))
	upd.CoachID = &wb.coach.ID
	mustNotFound(t, "UpdateTask to another studio's coach", ss.UpdateTask(ctx, &upd))
}

func testNotifications(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))
	msg := domain.Notification{TraineeID: w.trainee.ID, Kind: domain.NotifyFormAssigned, Source: domain.SourceJob, Payload: json.RawMessage(`{"assignmentId":"fas_x"}`)}
	must(t, "AddNotification", ss.AddNotification(ctx, &msg))
	list, err := ss.ListNotifications(ctx, page(50, 0))
	must(t, "ListNotifications", err)
	if list.Total != 2 || list.Items[0].ID != msg.ID || list.Items[0].Kind != domain.NotifyFormAssigned || list.Items[0].Source != domain.SourceJob ||
		string(list.Items[0].Payload) != `{"assignmentId":"fas_x"}` || list.Items[1].ID != w.note.ID || list.Items[1].Payload != nil {
		t.Fatalf("ListNotifications = %+v", list)
	}
	bad := domain.Notification{TraineeID: wb.trainee.ID, Kind: domain.NotifyMessage, Source: domain.SourceAPI}
	mustNotFound(t, "AddNotification for another studio's trainee", ss.AddNotification(ctx, &bad))
	theirs, _ := st.Studio(b.ID).ListNotifications(ctx, page(50, 0))
	if theirs.Total != 1 || theirs.Items[0].ID != wb.note.ID {
		t.Fatalf("studio b's outbox = %+v", theirs)
	}
}
