package lane

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
)

// Groups in one call. A write a coach addresses to several trainees at
// once ("send the weekly check-in to my VIPs") names them by a tag or a
// list (the roster's group), and the lane makes the one-trainee write for each of them through
// the whole lane again: the same credential (counted once, for the group),
// the trainee's own validation, Idempotency-Key (the group's, with the
// trainee's id), dry run and audit row. The answer says, per trainee, what
// was done or why not.

// GroupItem is what one trainee's write did.
type GroupItem struct {
	TraineeID string `json:"traineeId"`
	Name      string `json:"name"`
	Result    string `json:"result" jsonschema:"done, already_done (an identical write was made before) or refused (message says why)."`
	ID        string `json:"id,omitempty" jsonschema:"The record written (or, on a dry run, that would be)."`
	Message   string `json:"message,omitempty"`
}

// GroupAnswer is a group write's answer.
type GroupAnswer struct {
	Summary string      `json:"summary"`
	DryRun  bool        `json:"dryRun,omitempty" jsonschema:"True when nothing was kept: each item says what its write would do."`
	Items   []GroupItem `json:"items"`
}

// Group results.
const (
	GroupDone        = "done"
	GroupAlreadyDone = "already_done"
	GroupRefused     = "refused"
)

// ForEach makes the write method path (its {id} the trainee's) for each
// of the trainees (a group the roster names), with the body body gives
// for that trainee.
func (c *Call) ForEach(trainees []domain.Trainee, method, path string, body func(traineeID string) any) GroupAnswer {
	out := GroupAnswer{DryRun: c.DryRun() || wantsDryRun(c.Req), Items: make([]GroupItem, 0, len(trainees))}
	counts := map[string]int{}
	for _, t := range trainees {
		item := c.one(method, strings.Replace(path, "{id}", t.ID, 1), t, body(t.ID))
		counts[item.Result]++
		out.Items = append(out.Items, item)
	}
	out.Summary = fmt.Sprintf("%d trainees: %d done, %d already done, %d refused.", len(trainees), counts[GroupDone], counts[GroupAlreadyDone], counts[GroupRefused])
	if out.DryRun {
		out.Summary = "Dry run, nothing kept: " + out.Summary
	}
	return out
}

// one makes one trainee's write through the whole lane, as the group
// call's own credential.
func (c *Call) one(method, path string, t domain.Trainee, body any) GroupItem {
	item := GroupItem{TraineeID: t.ID, Name: strings.TrimSpace(t.FirstName + " " + t.LastName), Result: GroupRefused}
	b, err := json.Marshal(body)
	if err != nil {
		item.Message = "The write could not be made; try again."
		return item
	}
	token, _ := auth.Bearer(c.Req.Header.Get("Authorization"))
	ctx := auth.Admit(c.Ctx, token, c.P) // the group call was authenticated and counted once
	if c.P.Source != "" {
		ctx = auth.WithSource(ctx, c.P.Source)
	}
	r, err := http.NewRequestWithContext(ctx, method, Prefix+path, bytes.NewReader(b))
	if err != nil {
		item.Message = "The write could not be made; try again."
		return item
	}
	r.Header.Set("Authorization", c.Req.Header.Get("Authorization"))
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = c.Req.RemoteAddr
	for _, p := range c.Req.Header.Values(PreferHeader) {
		r.Header.Add(PreferHeader, p)
	}
	for _, k := range c.Req.Header.Values(IdempotencyHeader) {
		r.Header.Add(IdempotencyHeader, k+":"+t.ID)
	}
	w := &recorder{header: http.Header{}}
	c.l.handler.ServeHTTP(w, r)
	var env struct {
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error *Error          `json:"error"`
	}
	if json.Unmarshal(w.body.Bytes(), &env) != nil {
		item.Message = "The write answered nothing readable; try again."
		return item
	}
	if !env.OK {
		if env.Error != nil {
			item.Message = env.Error.Message
		}
		return item
	}
	var data struct {
		ID   string          `json:"id"`
		Data json.RawMessage `json:"data"` // a dry run's
	}
	_ = json.Unmarshal(env.Data, &data)
	if data.ID == "" && len(data.Data) > 0 {
		_ = json.Unmarshal(data.Data, &data)
	}
	item.ID = data.ID
	item.Result = GroupDone
	if w.header.Get(ReplayedHeader) == "true" || w.status == http.StatusOK && slices.Contains([]string{http.MethodPost}, method) && !wantsDryRun(r) {
		item.Result = GroupAlreadyDone
	}
	return item
}

// recorder keeps one in-process answer.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }
func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
