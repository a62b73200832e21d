package lane

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/training"
)

// enumOf is the enum a lane tag of field of T lists.
func enumOf[T any](t *testing.T, field string) []string {
	t.Helper()
	f, ok := reflect.TypeFor[T]().FieldByName(field)
	if !ok {
		t.Fatalf("no field %s", field)
	}
	for part := range strings.SplitSeq(f.Tag.Get("lane"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			return strings.Split(v, "|")
		}
	}
	t.Fatalf("%s has no enum", field)
	return nil
}

// The enums written in tags are the domain's lists: a new body area or
// metric cannot be forgotten in one of them.
func TestHealthEnumsAreTheDomainLists(t *testing.T) {
	var metrics []string
	for _, m := range training.BodyMetrics {
		metrics = append(metrics, m.Name)
	}
	for what, c := range map[string]struct{ got, want []string }{
		"check-in soreAreas": {enumOf[checkInInput](t, "SoreAreas"), domain.BodyAreas},
		"injury area":        {enumOf[injuryInput](t, "Area"), domain.BodyAreas},
		"injury side":        {enumOf[injuryInput](t, "Side"), domain.InjurySides},
		"goal measure":       {enumOf[goalInput](t, "Measure"), metrics},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: the tag lists %v, the domain %v", what, c.got, c.want)
		}
	}
}

// FuzzDayRange feeds arbitrary from/to queries through the decoder and the
// range resolution: an accepted range is two real days, from ≤ to, at
// most 366 days; a refusal is a 422 naming its field.
func FuzzDayRange(f *testing.F) {
	for _, s := range []string{"", "from=2026-01-01", "to=2026-01-01", "from=2026-01-01&to=2026-12-31", "from=2025-01-01&to=2026-01-02",
		"from=2026-03-01&to=2026-02-01", "from=2026-02-30", "to=9999-12-31", "from=0001-01-01", "from=2026-1-1", "to=%00", "from=a&from=b", "limit=3&offset=2"} {
		f.Add(s)
	}
	s := schemaFor[checkInsQuery]()
	loc, _ := domain.LoadZone("Asia/Jerusalem")
	now := time.Date(2026, 7, 1, 21, 30, 0, 0, time.UTC)
	c := &Call{l: &Lane{now: func() time.Time { return now }}, P: &auth.Principal{TimeZone: loc}}
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		var q checkInsQuery
		if e := s.decodeQuery(vals, &q); e != nil {
			if e.Status != 422 || len(e.Fields) == 0 {
				t.Fatalf("refusal %d %+v for %q", e.Status, e, raw)
			}
			return
		}
		from, to, e := c.days(q.dayRange)
		if e != nil {
			if e.Status != 422 || len(e.Fields) != 1 || (e.Fields[0].Field != "from" && e.Fields[0].Field != "to") {
				t.Fatalf("range refusal %+v for %q", e, raw)
			}
			return
		}
		fd, err1 := time.Parse(time.DateOnly, from)
		td, err2 := time.Parse(time.DateOnly, to)
		if err1 != nil || err2 != nil || td.Before(fd) || td.Sub(fd) > (maxRangeDays-1)*24*time.Hour {
			t.Fatalf("accepted %q as %s..%s", raw, from, to)
		}
		if q.From == nil && q.To == nil && to != "2026-07-02" {
			t.Fatalf("the default range ends %s, want today in Israel (2026-07-02)", to)
		}
	})
}
