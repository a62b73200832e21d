// Package login signs coaches and trainees in on a browser: their phone,
// then a one-time code sent over WhatsApp. The signed-in browser session
// is what the OAuth pages (consent, connected apps) ask for.
package login

// Person is someone signed in on a browser: a coach or a trainee of one
// studio, found by the phone on their record.
type Person struct {
	StudioID  string
	Kind      string // PersonCoach or PersonTrainee
	SubjectID string // coa_… or trn_…
	Name      string
}

// Kinds of person.
const (
	PersonCoach   = "coach"
	PersonTrainee = "trainee"
)
