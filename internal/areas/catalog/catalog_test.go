package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

func TestCatalogAndTasks(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("cat")
		k := f.Key

		var products kit.List[domain.Product]
		e.OK(200, e.Call(k, "GET", "/products?search=monthly", nil)).Into(t, &products)
		if products.Total != 1 || products.Items[0].ID != f.Product.ID {
			t.Errorf("products: %+v", products)
		}
		var p domain.Product
		e.OK(200, e.Call(k, "PATCH", "/products/"+f.Product.ID, map[string]any{"price": nil, "durationDays": 60})).Into(t, &p)
		if p.Price != nil || *p.DurationDays != 60 || p.Name != f.Product.Name {
			t.Errorf("product update: %+v", p)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "POST", "/products", map[string]any{"name": "", "price": -1, "currency": "shekel"}))

		var templates kit.List[domain.ProgramTemplate]
		e.OK(200, e.Call(k, "GET", "/program-templates", nil)).Into(t, &templates)
		if templates.Total != 1 {
			t.Errorf("templates: %+v", templates)
		}
		var forms kit.List[domain.FormTemplate]
		e.OK(200, e.Call(k, "GET", "/forms?search=check", nil)).Into(t, &forms)
		if forms.Total != 1 || len(forms.Items[0].Fields) != 2 {
			t.Errorf("forms: %+v", forms)
		}
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", "/forms", map[string]any{"name": "x", "fields": []map[string]any{{"key": "a", "label": "A", "type": "choice"}, {"key": "a", "label": "B", "type": "text"}}}))
		if !slices.Equal(a.Fields(), []string{"fields[0].options", "fields[1].key"}) {
			t.Errorf("form template 422: %s", a.Raw)
		}

		var coaches kit.List[domain.Coach]
		e.OK(200, e.Call(k, "GET", "/rpc/coaches", nil)).Into(t, &coaches)
		if coaches.Total != 1 || *coaches.Items[0].Phone != "+972520000001" {
			t.Errorf("coaches: %+v", coaches)
		}
		var co domain.Coach
		e.OK(200, e.Call(k, "PATCH", "/coaches/"+f.Coach.ID, map[string]any{"active": false, "phone": nil})).Into(t, &co)
		if co.Active || co.Phone != nil {
			t.Errorf("coach update: %+v", co)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "POST", "/coaches", map[string]any{"name": "X", "phone": "nope"}))

		var tags kit.List[domain.Tag]
		e.OK(200, e.Call(k, "GET", "/rpc/tags", nil)).Into(t, &tags)
		if tags.Total != 1 {
			t.Errorf("tags: %+v", tags)
		}
		e.Fails(409, "CONFLICT", e.Call(k, "POST", "/tags", map[string]any{"name": f.Tag.Name}))
		e.OK(200, e.Call(k, "DELETE", "/tags/"+f.Tag.ID, nil))
		e.OK(200, e.Call(k, "GET", "/rpc/tags", nil)).Into(t, &tags)
		if tags.Total != 0 {
			t.Errorf("tag not deleted: %+v", tags)
		}

		// Tasks.
		if f.Task.Priority != 0 || f.Task.Status != "open" || f.Task.Source != "api" {
			t.Errorf("task defaults: %+v", f.Task)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", "/tasks", map[string]any{"detail": strings.Repeat("d", 2001), "priority": 6}))
		if !slices.Equal(a.Fields(), []string{"title", "detail", "priority"}) {
			t.Errorf("task 422: %s", a.Raw)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/tasks", map[string]any{"title": "x", "clientId": "trn_00000000000000000000000000"}))
		a = e.Fails(422, "VALIDATION", e.Call(k, "PATCH", "/tasks/"+f.Task.ID, map[string]any{"status": "snoozed"}))
		if !slices.Equal(a.Fields(), []string{"snoozeUntil"}) {
			t.Errorf("snooze without date: %s", a.Raw)
		}
		var task domain.Task
		e.OK(200, e.Call(k, "PATCH", "/tasks/"+f.Task.ID, map[string]any{"snoozeUntil": "2030-01-01T09:00:00Z", "priority": 5})).Into(t, &task)
		if task.Status != "snoozed" || task.SnoozeUntil == nil || task.Priority != 5 {
			t.Errorf("snoozed: %+v", task)
		}
		var tasks kit.List[domain.Task]
		e.OK(200, e.Call(k, "GET", "/tasks?status=snoozed&clientId="+f.Trainee.ID, nil)).Into(t, &tasks)
		if tasks.Total != 1 {
			t.Errorf("tasks filter: %+v", tasks)
		}
		e.OK(200, e.Call(k, "PATCH", "/tasks/"+f.Task.ID, map[string]any{"status": "done"})).Into(t, &task)
		if task.Status != "done" || task.SnoozeUntil != nil {
			t.Errorf("done: %+v", task)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "PATCH", "/tasks/tsk_00000000000000000000000000", map[string]any{"status": "done"}))
	})
}
