package domain

import "time"

// Feedback is a trainee's word on the experience (the coaching, the tools,
// the app), kept for the studio to read. Rating is 1–5 when given.
type Feedback struct {
	ID        string    `json:"id"`
	TraineeID string    `json:"traineeId"`
	Text      string    `json:"text"`
	Rating    *int      `json:"rating"`
	Topic     *string   `json:"topic"`
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"createdAt"`
}

// PersonaExample is one situation and how the coaching voice answers it.
type PersonaExample struct {
	Situation string `json:"situation"`
	Reply     string `json:"reply"`
}

// Persona is a studio's coaching voice, as AI clients are asked to adopt it.
type Persona struct {
	Name         string           `json:"name"`
	Tone         string           `json:"tone"`
	Avoid        []string         `json:"avoid"`
	AnswerFormat string           `json:"answerFormat"`
	Examples     []PersonaExample `json:"examples"`
}
