package lane

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/otherwise/perform/internal/ids"
)

// A request field that names something of the studio carries a ref tag,
// ref:"trainee", ref:"coach" or ref:"tagName" (and the coach filters that
// follow who is asking: ref:"coachScope", ref:"coachFilter"). Every route checks its ref
// fields once the request is decoded, before the handler runs, so a filter
// with an id that names nothing answers the not-found sentence instead of
// an empty list a model would read as "none".
type refField struct {
	index []int
	name  string // the wire name
	check RefCheck
	// coachScope: the field is a coach filter or assignee that follows the
	// caller (ref:"coachScope"); see resolveCoachScope.
	coachScope bool
	// allWhenOmitted: a coach filter that takes me and all the same way
	// but reads the whole studio when left out (ref:"coachFilter": a
	// search finds any trainee unless asked for "mine").
	allWhenOmitted bool
}

// refFieldsOf lists the ref-tagged string fields of the struct type t; a
// tag naming no check the areas declared (Declaration.Refs), or on a field
// that is not a string, panics at start.
func (l *Lane) refFieldsOf(t reflect.Type) []refField {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []refField
	for _, f := range reflect.VisibleFields(t) {
		kind, ok := f.Tag.Lookup("ref")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if kind == "coachScope" || kind == "coachFilter" {
			if f.Type.Kind() != reflect.String {
				panic(fmt.Sprintf("lane: field %s of %v: ref %s needs a string field", f.Name, t, kind))
			}
			if l.held.refs["coach"] == nil {
				panic(fmt.Sprintf("lane: field %s of %v: ref %s needs the coach ref, which no area declares", f.Name, t, kind))
			}
			out = append(out, refField{index: f.Index, name: name, check: l.held.refs["coach"], coachScope: true, allWhenOmitted: kind == "coachFilter"})
			continue
		}
		check := l.held.refs[kind]
		elem := baseType(f.Type)
		if elem.Kind() == reflect.Slice {
			elem = elem.Elem()
		}
		if check == nil || elem.Kind() != reflect.String {
			panic(fmt.Sprintf("lane: field %s of %v: ref %q needs a string field and one of the known checks", f.Name, t, kind))
		}
		out = append(out, refField{index: f.Index, name: name, check: check})
	}
	return out
}

// checkRefs runs the checks of the ref fields in (a pointer to the request
// struct) that carry a value.
func (c *Call) checkRefs(refs []refField, in any) error {
	if len(refs) == 0 {
		return nil
	}
	v := reflect.ValueOf(in).Elem()
	for _, r := range refs {
		f := v.FieldByIndex(r.index)
		if r.coachScope {
			given := f.String()
			if given == "" && r.allWhenOmitted {
				continue
			}
			id, err := c.resolveCoachScope(r.name, given)
			if err != nil {
				return err
			}
			f.SetString(id)
			if id != given {
				continue // the whole studio, or the caller's own coach id, which the credential already proved
			}
			if err := r.resolve(c, r.name, f); err != nil {
				return err
			}
			continue
		}
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		if f.Kind() == reflect.Slice {
			for i := range f.Len() {
				if err := r.resolve(c, fmt.Sprintf("%s[%d]", r.name, i), f.Index(i)); err != nil {
					return err
				}
			}
			continue
		}
		if err := r.resolve(c, r.name, f); err != nil {
			return err
		}
	}
	return nil
}

// resolve checks one string value, writing back the value it resolves to.
func (r refField) resolve(c *Call, field string, f reflect.Value) error {
	s := f.String()
	if s == "" {
		return nil
	}
	v, err := r.check(c, field, s)
	if err != nil {
		return err
	}
	f.SetString(v)
	return nil
}

// Who is asking. A coach's own credential (her OAuth grant, or the WhatsApp
// assistant acting for her) names her as its subject; a studio key names no
// one and speaks for the whole studio. A field tagged ref:"coachScope" (a
// coach filter, or the coach a task is for) follows that, the same way on
// every route:
//
//   - left out: the caller's own when a coach is asking, else the whole studio;
//   - "me": the caller's own, refused for a studio key (it names no coach);
//   - "all": the whole studio (no coach);
//   - a coach id: that coach, checked to be the studio's.
const (
	CoachMe  = "me"
	CoachAll = "all"
)

// Coach is the id of the coach the caller speaks for, "" for a studio key
// (or a trainee).
func (c *Call) Coach() string {
	if c.P != nil && strings.HasPrefix(c.P.Subject, string(ids.Coach)+"_") {
		return c.P.Subject
	}
	return ""
}

// resolveCoachScope turns a coachScope field's value into the coach id the
// handler reads ("" for the whole studio).
func (c *Call) resolveCoachScope(field, v string) (string, error) {
	switch v {
	case "":
		return c.Coach(), nil
	case CoachAll:
		return "", nil
	case CoachMe:
		if me := c.Coach(); me != "" {
			return me, nil
		}
		return "", InvalidField(field, `"me" needs a coach's own sign-in; this studio key speaks for the whole studio. Give a coach id from list_coaches, or "all".`)
	}
	return v, nil
}
