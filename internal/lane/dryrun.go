package lane

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// A write sent with "Prefer: dry-run" (RFC 7240's header; the preference
// is Perform's) runs exactly as the real call would — validation, foreign
// ids, plan limits, the dates the handler chooses — inside one store
// transaction that is then rolled back. Nothing stays: no row, no outbox
// notification, no Idempotency-Key record. The answer says so with
// Preference-Applied: dry-run and carries what the call would have
// answered. A proposal the WhatsApp assistant shows a coach is such an
// answer.
const (
	PreferHeader            = "Prefer"
	PreferenceAppliedHeader = "Preference-Applied"
	DryRunPreference        = "dry-run"
)

// dryRunAnswer is a dry run's data: the status and data the real call
// would answer, and the display names of the studio's records it names
// (the path's id, ids in the body and in the answer), so a caller can
// describe the change without reading them again.
type dryRunAnswer struct {
	DryRun bool              `json:"dryRun"`
	Status int               `json:"status"`
	Data   any               `json:"data"`
	Names  map[string]string `json:"names"`
}

// db is the store the call's handler reads and writes: the lane's, or
// during a dry run the transaction that is rolled back.
func (c *Call) DB() store.Store {
	if c.tx != nil {
		return c.tx
	}
	return c.l.store
}

// errRolledBack ends a dry run's transaction.
var errRolledBack = errors.New("dry run: rolled back")

// wantsDryRun reports whether a write asks for a dry run: a Prefer
// preference named dry-run, in any of the header's lines and lists,
// with or without parameters.
func wantsDryRun(r *http.Request) bool {
	if !isWrite(r.Method) {
		return false
	}
	for _, line := range r.Header.Values(PreferHeader) {
		for _, pref := range strings.Split(line, ",") {
			name, _, _ := strings.Cut(pref, ";")
			name, _, _ = strings.Cut(name, "=")
			if strings.EqualFold(strings.TrimSpace(name), DryRunPreference) {
				return true
			}
		}
	}
	return false
}

// dryRun serves a write that asked for a dry run; it reports false (and
// answers nothing) for any other request. The handler's every store call
// goes through c.store(), bound here to the transaction that is rolled back.
func (l *Lane) dryRun(w http.ResponseWriter, r *http.Request, rt *route, c *Call) bool {
	if !wantsDryRun(r) {
		return false
	}
	infoFrom(r.Context()).dryRun = true
	w.Header().Set(PreferenceAppliedHeader, DryRunPreference)
	w.Header().Add("Vary", PreferHeader)
	var data any
	var handlerErr error
	var names map[string]string
	var panicked any
	run := l.store.InTx
	if rt.fanout {
		// A group write: each of its writes is a dry run of its own.
		run = func(ctx context.Context, fn func(tx store.Store) error) error { return fn(nil) }
	}
	err := run(c.Ctx, func(tx store.Store) (err error) {
		c.tx = tx
		defer func() {
			c.tx = nil
			// A handler's panic still rolls the transaction back; the
			// endpoint then answers it as a 500.
			if panicked = recover(); panicked != nil {
				err = errRolledBack
			}
		}()
		names = map[string]string{}
		c.nameRecords(names, c.ID())
		if body, e := c.body(); e == nil {
			c.nameRecords(names, jsonValue(body))
		}
		data, handlerErr = rt.handle(c)
		if handlerErr == nil {
			c.nameRecords(names, jsonValue(data))
		}
		return errRolledBack
	})
	if panicked != nil {
		panic(panicked)
	}
	switch {
	case !errors.Is(err, errRolledBack):
		l.internal(w, r, "running a dry run", err)
	case handlerErr != nil:
		l.fail(w, r, rt, handlerErr)
	default:
		status := rt.status
		if c.status != 0 {
			status = c.status
		}
		l.writeData(w, r, http.StatusOK, dryRunAnswer{DryRun: true, Status: status, Data: data, Names: names})
	}
	return true
}

// nameRecords adds to names the display name of every studio record v
// names: string values anywhere in it that are ids of a named kind. Read
// inside the dry run's transaction, so the path's and the body's records
// are named as they were before the write (a renamed trainee by the old
// name, a deleted one at all) and the answer's as they would be after.
func (c *Call) nameRecords(names map[string]string, v any) {
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			k, ok := ids.KindOf(x)
			nameOf := c.l.held.nouns[k].Name
			if _, done := names[x]; !ok || done || nameOf == nil || !ids.Valid(x, k) {
				return
			}
			if name, err := nameOf(c.Ctx, c.Studio(), x); err == nil && name != "" {
				names[x] = name
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// jsonValue is v as generic JSON (nil when it is not JSON).
func jsonValue(v any) any {
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil
		}
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// preferParam documents the dry run on every write.
var preferParam = map[string]any{
	"name":     PreferHeader,
	"in":       "header",
	"required": false,
	"description": "Prefer: dry-run runs the write exactly as the real call would (validation, foreign ids, plan limits, the dates it would choose) " +
		"and keeps nothing: no row, no notification, no Idempotency-Key record. The answer is 200 with Preference-Applied: dry-run and the data " +
		"{dryRun: true, status, data, names}: the status and data the real call would answer, and the display names of the records it concerns. " +
		"A refusal is the real call's.",
	"schema": map[string]any{"type": "string", "example": DryRunPreference},
}
