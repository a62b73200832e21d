package lane

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/orderedjson"
	"github.com/otherwise/perform/internal/redaction"
	"github.com/otherwise/perform/internal/store"
)

// Scrubbing: every successful answer to a trainee principal goes through
// two passes before it leaves the lane. First identifiers are redacted,
// wherever they sit: fields that name or reach a person (phones, emails,
// names, coaches, other people's and credentials' ids), and email
// addresses and phone numbers inside any text. Then the route's allow list
// drops every field it does not name. It is a reasonable-effort layer on
// top of the owner checks, not a compliance guarantee: text a person typed
// can still say things about someone.

// Redacted replaces what the scrubber takes out.
const Redacted = redaction.Marker

// redactedFields are field names (lower case) whose whole value is
// redacted: people's names, and ids of people other than the trainee
// (coaches, whoever wrote a record) and of credentials.
var redactedFields = map[string]bool{
	"firstname": true, "lastname": true, "fullname": true, "displayname": true,
	"coach": true, "coaches": true, "coachname": true, "coachnames": true, "coachid": true, "coachids": true,
	"createdby": true, "updatedby": true, "actor": true, "actorid": true, "actorids": true, "assignedto": true,
	"clientid": true, "credentialid": true, "keyid": true, "keyids": true, "apikeyid": true, "grantid": true,
}

// redactedField reports a field whose value is redacted whole: the names
// above, and every field about a phone or an email (phone, phones,
// coachPhone, emailAddress…).
func redactedField(name string) bool {
	n := strings.ToLower(name)
	return redactedFields[n] || strings.Contains(n, "phone") || strings.Contains(n, "email")
}

// scrubAnswer is data as a trainee principal may see it, after both passes
// with the route's allow list; people (the studio's coaches) are also
// taken out of the text by name.
func scrubAnswer(data any, allow []string, people []string) (json.RawMessage, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return scrubJSON(raw, allow, people...)
}

// scrubJSON runs both passes on a JSON value, keeping its fields' order
// (answers put their summary first).
func scrubJSON(raw []byte, allow []string, people ...string) (json.RawMessage, error) {
	v, err := orderedjson.Parse(raw)
	if err != nil {
		return nil, err
	}
	names := redaction.Names(people)
	v = keepAllowed(redact(v, func(s string) string { return redaction.NamesIn(redaction.Text(s), names) }), allowTree(allow))
	var buf bytes.Buffer
	if err := orderedjson.Write(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// redact is the first pass: redacted fields lose their whole value (kept
// in shape: every scalar in it becomes Redacted), and every other string
// loses the emails, phone numbers, ids and keys in it (redaction.Text). A
// field that holds ids (id, sessionId, exerciseIds…) keeps a value that is
// one id of a kind a trainee may see: the lane's answers name records by
// id; an id anywhere else is text someone typed.
func redact(v any, text func(string) string) any { return redactIn(v, text, false) }

func redactIn(v any, text func(string) string, idField bool) any {
	switch t := v.(type) {
	case orderedjson.Object:
		for i, m := range t {
			if redactedField(m.Key) {
				t[i].Val = redactAll(m.Val)
			} else {
				t[i].Val = redactIn(m.Val, text, holdsIDs(m.Key))
			}
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = redactIn(x, text, idField)
		}
		return t
	case string:
		if idField && visibleID(t) {
			return t
		}
		return text(t)
	}
	return v
}

// holdsIDs reports a field named for ids: id, ids, or …Id, …Ids, …ID.
func holdsIDs(name string) bool {
	switch {
	case name == "id" || name == "ids":
		return true
	case strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "Ids") || strings.HasSuffix(name, "ID") || strings.HasSuffix(name, "IDs"):
		return true
	}
	return false
}

// hiddenKinds are ids no trainee is shown even in an id field: coaches'
// and credentials'.
var hiddenKinds = []ids.Kind{ids.Coach, ids.APIKey, ids.OAuthClient, ids.OAuthGrant}

// visibleID reports s is one id, as a record's id is written, of a kind a
// trainee may see.
func visibleID(s string) bool {
	k, ok := ids.KindOf(s)
	if !ok || slices.Contains(hiddenKinds, k) {
		return false
	}
	for i := len(k) + 1; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return len(s) > len(k)+1
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// redactAll replaces every scalar in v but null; lists and objects keep
// their shape.
func redactAll(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case orderedjson.Object:
		for i := range t {
			t[i].Val = redactAll(t[i].Val)
		}
		return t
	case []any:
		for i := range t {
			t[i] = redactAll(t[i])
		}
		return t
	}
	return Redacted
}

// allowNode is one step of the allow list: the fields allowed below it,
// or (all) the whole subtree.
type allowNode struct {
	all      bool
	children map[string]*allowNode
}

// allowTree is the allow list as a tree of its dotted paths.
func allowTree(paths []string) *allowNode {
	root := &allowNode{}
	for _, p := range paths {
		n := root
		for _, part := range strings.Split(p, ".") {
			if n.children == nil {
				n.children = map[string]*allowNode{}
			}
			c := n.children[part]
			if c == nil {
				c = &allowNode{}
				n.children[part] = c
			}
			n = c
		}
		n.all = true
	}
	return root
}

// keepAllowed is the second pass: of each object only the fields the node
// names, whole when the path ends there; lists pass through to their
// items. A value where the list expects an object is dropped, but null
// (an absent record) is kept.
func keepAllowed(v any, n *allowNode) any {
	if n.all {
		return v
	}
	switch t := v.(type) {
	case orderedjson.Object:
		kept := orderedjson.Object{}
		for _, m := range t {
			if c := n.children[m.Key]; c != nil {
				if val, ok := keepAllowedValue(m.Val, c); ok {
					kept = append(kept, orderedjson.Member{Key: m.Key, Val: val})
				}
			}
		}
		return kept
	case []any:
		out := make([]any, 0, len(t))
		for _, x := range t {
			if val, ok := keepAllowedValue(x, n); ok {
				out = append(out, val)
			}
		}
		return out
	case nil:
		return nil
	}
	return nil
}

func keepAllowedValue(v any, n *allowNode) (any, bool) {
	if n.all {
		return v, true
	}
	switch v.(type) {
	case orderedjson.Object, []any, nil:
		return keepAllowed(v, n), true
	}
	return nil, false
}

// scrubEnvelope scrubs the data of a stored success envelope (an
// idempotent replay); an error envelope is returned as it is.
func scrubEnvelope(body []byte, allow []string, people []string) ([]byte, error) {
	var env struct {
		OK        bool            `json:"ok"`
		Data      json.RawMessage `json:"data,omitempty"`
		RequestID string          `json:"requestId"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	if !env.OK || len(env.Data) == 0 {
		return body, nil
	}
	data, err := scrubJSON(env.Data, allow, people...)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(httpx.Envelope{OK: true, Data: data, RequestID: env.RequestID}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// people are the names the scrubber takes out of a trainee's text: the
// studio's coaches (few, and the people a trainee's records most often
// name). Other trainees' names are not looked for.
func (c *Call) people() ([]string, error) {
	var names []string
	for offset := 0; ; {
		page, err := c.Studio().ListCoaches(c.Ctx, store.Page{Limit: 200, Offset: offset})
		if err != nil {
			return nil, fmt.Errorf("listing the coaches to scrub: %w", err)
		}
		for _, co := range page.Items {
			names = append(names, co.Name)
		}
		offset += len(page.Items)
		if len(page.Items) == 0 || offset >= page.Total {
			return names, nil
		}
	}
}
