package domain

import (
	"encoding/json"
	"time"
)

// Weekly plan draft statuses: a draft waits for its coach, is applied
// (its sessions planned) or expires unapplied, leaving nothing behind.
const (
	DraftPending    = "pending"
	DraftApplied    = "applied"
	DraftSuperseded = "superseded" // a newer draft of the week replaced it
)

// Where a draft's refinement by the model stands: the rules' week is the
// draft at once; the model's layout and notes refine it afterwards.
const (
	RefinePending = "pending"
	RefineDone    = "done"
	RefineFailed  = "failed"
	RefineSkipped = "skipped"
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
	// Fingerprint is the hash of what the rules read: a pending draft is
	// answered again only while the planner's input hashes the same.
	Fingerprint      string  `json:"-"`
	SupersededReason *string `json:"supersededReason,omitempty"`
	// Refinement is RefinePending … RefineSkipped; RefinementNote says why
	// it failed or was skipped, or that it landed after the draft was applied.
	Refinement     string  `json:"refinement"`
	RefinementNote *string `json:"refinementNote,omitempty"`
	// TaskIDs are the coaches' tasks about the week (updated, not repeated).
	TaskIDs []string `json:"-"`
}
