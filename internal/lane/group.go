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
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// Groups in one call. A write a coach addresses to several trainees at
// once ("send the weekly check-in to my VIPs") names them by a tag or a
// list, and the lane makes the one-trainee write for each of them through
// the whole lane again: the same credential (counted once, for the group),
// the trainee's own validation, Idempotency-Key (the group's, with the
// trainee's id), dry run and audit row. The answer says, per trainee, what
// was done or why not.

// MaxGroup is the most trainees one group call reaches.
const MaxGroup = 200

// Group names the trainees of a group write: a tag or a list.
type Group struct {
	Tag        string   `json:"tag,omitempty" jsonschema:"Every active trainee with this tag (a name from list_tags, any case); or give traineeIds." lane:"maxLength=100" ref:"tagName"`
	TraineeIDs []string `json:"traineeIds,omitempty" jsonschema:"The trainees, by id (search_trainees) or name, up to 200; or give tag." lane:"maxLength=100,maxItems=200" ref:"trainee"`
}

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
// trainee of g, with the body body gives for that trainee.
func (c *Call) ForEach(g Group, method, path string, body func(traineeID string) any) (GroupAnswer, error) {
	trainees, err := c.groupOf(g)
	if err != nil {
		return GroupAnswer{}, err
	}
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
	return out, nil
}

// groupOf is the trainees g names, in the order given (by name for a tag).
func (c *Call) groupOf(g Group) ([]domain.Trainee, error) {
	ss := c.Studio()
	switch {
	case g.Tag != "" && len(g.TraineeIDs) > 0:
		return nil, InvalidField("tag", "Give tag or traineeIds, not both.")
	case g.Tag != "":
		l, err := ss.SearchTrainees(c.Ctx, store.TraineeFilter{Tag: g.Tag, Status: domain.TraineeActive, Page: store.Page{Limit: MaxGroup + 1}})
		if err != nil {
			return nil, err
		}
		if l.Total > MaxGroup {
			return nil, InvalidField("tag", fmt.Sprintf("Tag %s has %d active trainees; a group call reaches at most %d. Give traineeIds in parts.", g.Tag, l.Total, MaxGroup))
		}
		if l.Total == 0 {
			return nil, InvalidField("tag", fmt.Sprintf("No active trainee has the tag %s.", g.Tag))
		}
		return l.Items, nil
	case len(g.TraineeIDs) > 0:
		var out []domain.Trainee
		for _, id := range CleanStrings(g.TraineeIDs) {
			t, err := Lookup(c.Ctx, ids.Trainee, id, ss.GetTrainee)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	return nil, InvalidField("traineeIds", "Name the group: tag (a name from list_tags) or traineeIds (ids or names, up to 200).")
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
