package domain

// Credits are what a package or membership subscription holds on a day:
// a package its sessions in all until it expires, a membership its
// sessions in the week of that day (Sessions nil: unlimited).
type Credits struct {
	SubscriptionID string `json:"subscriptionId"`
	TraineeID      string `json:"traineeId"`
	PlanName       string `json:"planName"`
	// Kind is the plan's: package or membership.
	Kind string `json:"kind"`
	// Sessions is the package's sessions in all or the membership's a
	// week; nil is unlimited.
	Sessions *int `json:"sessions"`
	// Used are the credits used and not released: in all for a package,
	// in the week of WeekStart for a membership.
	Used int `json:"sessionsUsed"`
	// Left is Sessions - Used (never below 0); nil is unlimited.
	Left *int `json:"sessionsLeft"`
	// ExpiresOn is the last day the credits may be used (a package's
	// validity, or the subscription's end); nil: none.
	ExpiresOn *string `json:"expiresOn"`
	// WeekStart is the first day of the week a membership's Used counts.
	WeekStart *string `json:"weekStart,omitempty"`
	// Status is the subscription's stored state (active, frozen, cancelled).
	Status string `json:"-"`
	// StartedOn is the subscription's first day.
	StartedOn string `json:"-"`
}

// Usable reports whether a credit may be used on day (YYYY-MM-DD).
func (c Credits) Usable(day string) bool {
	if c.Status != "active" || c.StartedOn > day || (c.ExpiresOn != nil && *c.ExpiresOn < day) {
		return false
	}
	return c.Left == nil || *c.Left > 0
}
