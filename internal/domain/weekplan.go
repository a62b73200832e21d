package domain

import (
	"encoding/json"
	"time"
)

// Weekly plan draft statuses: a draft waits for its coach, is applied
// (its sessions planned) or expires unapplied, leaving nothing behind.
const (
	DraftPending = "pending"
	DraftApplied = "applied"
)

// PlanDraft is a drafted training week (internal/weekplan's Plan and
// Report, kept as the JSON they were drafted as) until a coach applies it.
type PlanDraft struct {
	ID          string          `json:"id"`
	TraineeID   string          `json:"traineeId"`
	WeekStart   string          `json:"weekStart"`
	Status      string          `json:"status"`
	RequestedBy string          `json:"requestedBy"` // trainee or coach
	CoachID     *string         `json:"coachId"`     // the coach who drafted or applied it
	Plan        json.RawMessage `json:"plan"`
	Report      json.RawMessage `json:"report"`
	SessionIDs  []string        `json:"sessionIds"` // the planned sessions, once applied
	CreatedAt   time.Time       `json:"createdAt"`
	ExpiresAt   time.Time       `json:"expiresAt"`
	AppliedAt   *time.Time      `json:"appliedAt"`
}
