package lane

import (
	"net/url"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
)

// dayRangeQuery is a read's window and page, as the check-ins take them.
type dayRangeQuery struct {
	DayRange
	PageQuery
}

// FuzzDayRange feeds arbitrary from/to queries through the decoder and the
// range resolution: an accepted range is two real days, from ≤ to, at
// most 366 days; a refusal is a 422 naming its field.
func FuzzDayRange(f *testing.F) {
	for _, s := range []string{"", "from=2026-01-01", "to=2026-01-01", "from=2026-01-01&to=2026-12-31", "from=2025-01-01&to=2026-01-02",
		"from=2026-03-01&to=2026-02-01", "from=2026-02-30", "to=9999-12-31", "from=0001-01-01", "from=2026-1-1", "to=%00", "from=a&from=b", "limit=3&offset=2"} {
		f.Add(s)
	}
	s := DecoderOf(new(dayRangeQuery))
	loc, _ := domain.LoadZone("Asia/Jerusalem")
	now := time.Date(2026, 7, 1, 21, 30, 0, 0, time.UTC)
	c := &Call{l: &Lane{now: func() time.Time { return now }}, P: &auth.Principal{TimeZone: loc}, at: now}
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		var q dayRangeQuery
		if e := s.Query(vals, &q); e != nil {
			if e.Status != 422 || len(e.Fields) == 0 {
				t.Fatalf("refusal %d %+v for %q", e.Status, e, raw)
			}
			return
		}
		from, to, e := c.Days(q.DayRange)
		if e != nil {
			if e.Status != 422 || len(e.Fields) != 1 || (e.Fields[0].Field != "from" && e.Fields[0].Field != "to") {
				t.Fatalf("range refusal %+v for %q", e, raw)
			}
			return
		}
		fd, err1 := time.Parse(time.DateOnly, from)
		td, err2 := time.Parse(time.DateOnly, to)
		if err1 != nil || err2 != nil || td.Before(fd) || td.Sub(fd) > (MaxRangeDays-1)*24*time.Hour {
			t.Fatalf("accepted %q as %s..%s", raw, from, to)
		}
		if q.From == nil && q.To == nil && to != "2026-07-02" {
			t.Fatalf("the default range ends %s, want today in Israel (2026-07-02)", to)
		}
	})
}
