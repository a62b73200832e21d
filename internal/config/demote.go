package config

import (
	"context"
	"log/slog"
)

// Demote returns a logger that writes l's records below warn at level to
// instead: a library's routine chatter (the MCP SDK's per-request session
// lines, River's job counts) then stays out of the info log, while its
// warnings and errors keep their level.
func Demote(l *slog.Logger, to slog.Level) *slog.Logger {
	return slog.New(demoted{h: l.Handler(), to: to})
}

type demoted struct {
	h  slog.Handler
	to slog.Level
}

func (d demoted) level(l slog.Level) slog.Level {
	if l < slog.LevelWarn {
		return d.to
	}
	return l
}

func (d demoted) Enabled(ctx context.Context, l slog.Level) bool {
	return d.h.Enabled(ctx, d.level(l))
}

func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	r.Level = d.level(r.Level)
	return d.h.Handle(ctx, r)
}

func (d demoted) WithAttrs(as []slog.Attr) slog.Handler {
	return demoted{h: d.h.WithAttrs(as), to: d.to}
}

func (d demoted) WithGroup(name string) slog.Handler {
	return demoted{h: d.h.WithGroup(name), to: d.to}
}
