package lane

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
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
	check refCheck
	// coachScope: the field is a coach filter or assignee that follows the
	// caller (ref:"coachScope"); see resolveCoachScope.
	coachScope bool
	// allWhenOmitted: a coach filter that takes me and all the same way
	// but reads the whole studio when left out (ref:"coachFilter": a
	// search finds any trainee unless asked for "mine").
	allWhenOmitted bool
}

type refCheck func(c *Call, value string) error

// refChecks are the checks a ref tag may name.
var refChecks = map[string]refCheck{
	"trainee": func(c *Call, v string) error {
		_, err := Lookup(c.Ctx, ids.Trainee, v, c.Studio().GetTrainee)
		return err
	},
	"coach": func(c *Call, v string) error {
		_, err := Lookup(c.Ctx, ids.Coach, v, c.Studio().GetCoach)
		return err
	},
	"tagName": checkTagName,
}

// refFieldsOf lists the ref-tagged string fields of the struct type t; a
// tag naming no check, or on a field that is not a string, panics at start.
func refFieldsOf(t reflect.Type) []refField {
	if t.Kind() != reflect.Struct {
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
			out = append(out, refField{index: f.Index, name: name, check: refChecks["coach"], coachScope: true, allWhenOmitted: kind == "coachFilter"})
			continue
		}
		check := refChecks[kind]
		if check == nil || baseType(f.Type).Kind() != reflect.String {
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
		} else if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		if s := f.String(); s != "" {
			if err := r.check(c, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxTagsNamed bounds how many of the studio's tags an unknown-tag answer lists.
const maxTagsNamed = 30

// checkTagName answers 404 for a tag name the studio does not have, naming
// the tags it has.
func checkTagName(c *Call, name string) error {
	tags, err := c.Studio().ListTags(c.Ctx, store.Page{Limit: maxTagsNamed + 1})
	if err != nil {
		return err
	}
	names := make([]string, 0, len(tags.Items))
	for _, t := range tags.Items {
		if t.Name == name {
			return nil
		}
		names = append(names, t.Name)
	}
	if tags.Total > len(tags.Items) {
		// More tags than listed: look the name up among all of them.
		all, err := c.Studio().ListTags(c.Ctx, store.Page{Limit: tags.Total})
		if err != nil {
			return err
		}
		for _, t := range all.Items {
			if t.Name == name {
				return nil
			}
		}
	}
	msg := fmt.Sprintf("This studio has no tag named %q, and it has no tags yet; omit tag, or give trainees tags with update_trainee.", text.Truncate(name, 50))
	if len(names) > 0 {
		shown := names[:min(len(names), maxTagsNamed)]
		more := ""
		if tags.Total > len(shown) {
			more = fmt.Sprintf(" and %d more (list_tags)", tags.Total-len(shown))
		}
		msg = fmt.Sprintf("This studio has no tag named %q; its tags are %s%s. Tag names match exactly, as list_tags gives them.", text.Truncate(name, 50), strings.Join(shown, ", "), more)
	}
	return &Error{Status: 404, Code: CodeNotFound, Message: msg}
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
