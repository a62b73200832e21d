package lane

import (
	"log/slog"
	"slices"
	"time"
)

// An Area is a package of the lane's routes, named for what it holds (the
// studio, the roster, the training memory, the public offer): it adds its
// routes when the lane is built, and the kernel serves them through the one
// policy point.
type Area interface {
	Routes(rs *Routes)
}

// Routes collects the areas' routes while the lane is built.
type Routes struct{ list []*route }

// Now is the lane's clock.
func (c *Call) Now() time.Time { return c.l.now() }

// Today is the current UTC day as YYYY-MM-DD.
func (c *Call) Today() string { return c.l.today() }

// Logger is the lane's logger.
func (c *Call) Logger() *slog.Logger { return c.l.logger }

// SetStatus makes status the success status of this answer instead of the
// route's (a create that found its work already done answers 200).
func (c *Call) SetStatus(status int) { c.status = status }

// Sent lists the body fields the request carried, sorted (so a PATCH tells
// an absent field from a null one).
func (c *Call) Sent() []string {
	names := make([]string, 0, len(c.present))
	for k := range c.present {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// DryRun reports whether the request runs as a dry run (rolled back, its
// side effects described, not done).
func (c *Call) DryRun() bool { return infoFrom(c.Ctx).dryRun }

// RequestID is the request's id, as the answer and the audit carry it.
func (c *Call) RequestID() string { return infoFrom(c.Ctx).id }
