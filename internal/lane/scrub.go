package lane

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
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
const Redacted = "[REDACTED]"

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
	v, err := parseOrdered(raw)
	if err != nil {
		return nil, err
	}
	names := nameSet(people)
	v = keepAllowed(redact(v, func(s string) string { return redactNames(RedactText(s), names) }), allowTree(allow))
	var buf bytes.Buffer
	if err := writeOrdered(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// member is one field of an object, in the order it came.
type member struct {
	key string
	val any
}

// object is a JSON object keeping its fields' order; the other values
// are []any, string, json.Number, bool and nil.
type object []member

// parseOrdered reads one JSON value.
func parseOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("scrub: more than one JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("scrub: object key %v", kt)
				}
				val, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, member{key, val})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			list := []any{}
			for dec.More() {
				val, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("scrub: unexpected %v", t)
	default:
		return t, nil
	}
}

func writeOrdered(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case object:
		buf.WriteByte('{')
		for i, m := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(m.key)
			buf.Write(k)
			buf.WriteByte(':')
			if err := writeOrdered(buf, m.val); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeOrdered(buf, x); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

// redact is the first pass: redacted fields lose their whole value (kept
// in shape: every scalar in it becomes Redacted), and every other string
// loses the emails, phone numbers, ids and keys in it (RedactText). A
// field that holds ids (id, sessionId, exerciseIds…) keeps a value that is
// one id of a kind a trainee may see: the lane's answers name records by
// id; an id anywhere else is text someone typed.
func redact(v any, text func(string) string) any { return redactIn(v, text, false) }

func redactIn(v any, text func(string) string, idField bool) any {
	switch t := v.(type) {
	case object:
		for i, m := range t {
			if redactedField(m.key) {
				t[i].val = redactAll(m.val)
			} else {
				t[i].val = redactIn(m.val, text, holdsIDs(m.key))
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

// nameWord is a run of letters (any script, with their marks).
var nameWord = regexp.MustCompile(`[\p{L}\p{M}]+`)

// nameSet is the words of people's names worth finding in text: three
// letters or more, lower-cased.
func nameSet(people []string) map[string]bool {
	set := map[string]bool{}
	for _, p := range people {
		for _, w := range nameWord.FindAllString(p, -1) {
			if len([]rune(w)) >= 3 {
				set[strings.ToLower(w)] = true
			}
		}
	}
	return set
}

// redactNames replaces the words of s that are words of a name in names,
// when written as a name is: capitalised (or in a script without case).
// "your coach" stays; "Yael said" does not.
func redactNames(s string, names map[string]bool) string {
	if len(names) == 0 || s == "" {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range nameWord.FindAllStringIndex(s, -1) {
		w := s[loc[0]:loc[1]]
		if !names[strings.ToLower(w)] || !writtenAsName(w) {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(Redacted)
		last = loc[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// writtenAsName: the word's first letter is not lower case.
func writtenAsName(w string) bool {
	for _, r := range w {
		return !unicode.IsLower(r)
	}
	return false
}

// redactAll replaces every scalar in v but null; lists and objects keep
// their shape.
func redactAll(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case object:
		for i := range t {
			t[i].val = redactAll(t[i].val)
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
	case object:
		kept := object{}
		for _, m := range t {
			if c := n.children[m.key]; c != nil {
				if val, ok := keepAllowedValue(m.val, c); ok {
					kept = append(kept, member{m.key, val})
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
	case object, []any, nil:
		return keepAllowed(v, n), true
	}
	return nil, false
}

// emailPattern finds email addresses in text.
var emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)

// phoneCandidate finds runs of digits that might be a phone number: an
// optional +, digits and the separators people write in phone numbers
// (spaces, dashes, parentheses). Which candidates are phones decides
// looksLikePhone.
var phoneCandidate = regexp.MustCompile(`\+?\(?\d[\d\-() ]*\d\)?`)

// datePattern is an ISO date (or its reverse) inside a candidate: dates
// are not phone numbers.
var datePattern = regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{2}-\d{2}-\d{4}`)

// idPattern is an id of any of Perform's kinds inside text: the kind's
// prefix, an underscore and ten or more letters and digits (a whole id has
// 26; a coach may paste part of one), whatever their case.
var idPattern = func() *regexp.Regexp {
	var kinds []string
	for _, k := range ids.Kinds() {
		kinds = append(kinds, regexp.QuoteMeta(string(k)))
	}
	slices.Sort(kinds)
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(kinds, "|") + `)_[0-9a-z]{10,}`)
}()

// secretPattern is a key or token of Perform's (pf_live_…, pf_at_…,
// pf_rt_…, pf_tt_…) inside text: the prefix and what follows it.
var secretPattern = regexp.MustCompile(`(?i)\bpf_[a-z]+_[0-9a-z_\-]{8,}`)

// RedactText replaces email addresses, phone numbers, Perform's ids
// (trn_…, coa_…, key_…) and keys and tokens (pf_live_…) in s. The answers'
// own id fields are not text: redact keeps the ids in them.
func RedactText(s string) string {
	if s == "" || s == Redacted {
		return s
	}
	if strings.IndexByte(s, '_') >= 0 {
		s = secretPattern.ReplaceAllString(s, Redacted)
		s = idPattern.ReplaceAllString(s, Redacted)
	}
	if strings.IndexByte(s, '@') >= 0 {
		s = emailPattern.ReplaceAllString(s, Redacted)
	}
	if !hasDigits(s, 9) { // most strings: no phone can be in them
		return s
	}
	locs := phoneCandidate.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		// A run glued to letters is part of a word or an id (trn_06h3…).
		if start > 0 && isWordByte(s[start-1]) || end < len(s) && isWordByte(s[end]) {
			continue
		}
		for _, ph := range phonesIn(s[start:end]) {
			b.WriteString(s[last : start+ph[0]])
			b.WriteString(Redacted)
			last = start + ph[1]
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// phonesIn finds the phone numbers in one candidate run: the whole run, or
// else the longest runs of its space-separated words, from the left, that
// look like one ("2026-07-01 050-123-4567" holds one after its date).
func phonesIn(c string) [][2]int {
	if looksLikePhone(c) {
		return [][2]int{{0, len(c)}}
	}
	var words [][2]int
	for i := 0; i < len(c); {
		for i < len(c) && c[i] == ' ' {
			i++
		}
		j := i
		for j < len(c) && c[j] != ' ' {
			j++
		}
		if j > i {
			words = append(words, [2]int{i, j})
		}
		i = j
	}
	var found [][2]int
	for i := 0; i < len(words); i++ {
		for j := len(words) - 1; j >= i; j-- {
			if i == 0 && j == len(words)-1 {
				continue // the whole run, tried above
			}
			from, to := words[i][0], words[j][1]
			if looksLikePhone(c[from:to]) {
				found = append(found, [2]int{from, to})
				i = j
				break
			}
		}
	}
	return found
}

// hasDigits reports whether s holds at least n digits in all.
func hasDigits(s string, n int) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if n--; n == 0 {
				return true
			}
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// looksLikePhone tells a phone number from the other digit runs of a
// training record (dates, sets and reps, weights, times): 9 to 15 digits,
// no date inside, and written as phones are: with a leading + or 0, as
// one long run, or in dash or parenthesis groups of which one has three
// digits or more. "100 100 100" (three sets of 100) is not; "5x5 @ 100kg"
// never gets here.
func looksLikePhone(c string) bool {
	digits, longest, group := 0, 0, 0
	dashed := false
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case ch >= '0' && ch <= '9':
			digits++
			group++
			longest = max(longest, group)
		default:
			if ch == '-' || ch == '(' || ch == ')' {
				dashed = true
			}
			group = 0
		}
	}
	if digits < 9 || digits > 15 || datePattern.MatchString(c) {
		return false
	}
	first := strings.TrimLeft(c, "(")
	switch {
	case strings.HasPrefix(first, "+"), strings.HasPrefix(first, "0"):
		return true
	case longest >= 7:
		return true
	default:
		return dashed && longest >= 3
	}
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
