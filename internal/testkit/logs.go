package testkit

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Record is one log record as a test reads it: its attributes flattened,
// a group's named "group.key", values resolved (slog.Value.Resolve) and
// kept as Any gives them.
type Record struct {
	Time    time.Time
	Level   slog.Level
	Message string
	Attrs   map[string]any
}

// Attr is the value of the attribute named key, "" when it is missing, in
// fmt's %v form.
func (r Record) Attr(key string) string {
	v, ok := r.Attrs[key]
	if !ok {
		return ""
	}
	return fmt.Sprint(v)
}

func (r Record) String() string {
	keys := make([]string, 0, len(r.Attrs))
	for k := range r.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", r.Level, r.Message)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, r.Attrs[k])
	}
	return b.String()
}

// Logs records every record logged through its Logger (at Level or above;
// debug when unset), for a test to read or wait for. Safe for concurrent
// use; Logger's With and WithGroup record into the same Logs.
type Logs struct {
	Level slog.Leveler

	mu      sync.Mutex
	records []Record
	changed chan struct{} // closed and replaced on each record
}

// NewLogs returns an empty Logs recording every level.
func NewLogs() *Logs { return &Logs{Level: slog.LevelDebug} }

// Logger logs into l.
func (l *Logs) Logger() *slog.Logger { return slog.New(&logsHandler{logs: l}) }

// Records returns the records so far, oldest first.
func (l *Logs) Records() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.records)
}

// Find returns the records that match, oldest first.
func (l *Logs) Find(match func(Record) bool) []Record {
	var out []Record
	for _, r := range l.Records() {
		if match(r) {
			out = append(out, r)
		}
	}
	return out
}

// Wait returns the first record that matches, waiting for one to be
// logged until ctx is done.
func (l *Logs) Wait(ctx context.Context, match func(Record) bool) (Record, error) {
	seen := 0
	for {
		l.mu.Lock()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		fresh := slices.Clone(l.records[seen:])
		seen = len(l.records)
		l.mu.Unlock()
		for _, r := range fresh {
			if match(r) {
				return r, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Record{}, ctx.Err()
		}
	}
}

// WaitFor is Wait failing the test after timeout, listing what was logged.
func (l *Logs) WaitFor(t testing.TB, timeout time.Duration, what string, match func(Record) bool) Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r, err := l.Wait(ctx, match)
	if err != nil {
		var got []string
		for _, r := range l.Records() {
			got = append(got, r.String())
		}
		t.Fatalf("no log record %s within %v; logged:\n%s", what, timeout, strings.Join(got, "\n"))
	}
	return r
}

// Message matches a record by its message.
func Message(msg string) func(Record) bool {
	return func(r Record) bool { return r.Message == msg }
}

func (l *Logs) add(r Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

type logsHandler struct {
	logs   *Logs
	attrs  []slog.Attr // flattened, keys prefixed with their groups
	prefix string      // "a.b." inside WithGroup("a").WithGroup("b")
}

func (h *logsHandler) Enabled(_ context.Context, level slog.Level) bool {
	floor := slog.LevelDebug
	if h.logs.Level != nil {
		floor = h.logs.Level.Level()
	}
	return level >= floor
}

func (h *logsHandler) Handle(_ context.Context, r slog.Record) error {
	rec := Record{Time: r.Time, Level: r.Level, Message: r.Message, Attrs: map[string]any{}}
	for _, a := range h.attrs {
		rec.Attrs[a.Key] = a.Value.Any()
	}
	r.Attrs(func(a slog.Attr) bool {
		flatten(rec.Attrs, h.prefix, a)
		return true
	})
	h.logs.add(rec)
	return nil
}

func (h *logsHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	m := map[string]any{}
	for _, a := range attrs {
		flatten(m, h.prefix, a)
	}
	out := &logsHandler{logs: h.logs, prefix: h.prefix, attrs: slices.Clone(h.attrs)}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out.attrs = append(out.attrs, slog.Any(k, m[k]))
	}
	return out
}

func (h *logsHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &logsHandler{logs: h.logs, attrs: h.attrs, prefix: h.prefix + name + "."}
}

func flatten(into map[string]any, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			flatten(into, p, g)
		}
		return
	}
	if a.Key == "" {
		return
	}
	into[prefix+a.Key] = v.Any()
}
