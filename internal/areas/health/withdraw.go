package health

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// WithdrawWindow is how long after logging a record its trainee may still
// withdraw it ("undo" on the WhatsApp assistant).
const WithdrawWindow = 15 * time.Minute

// withdrawRoutes: a trainee's own fresh log, taken back.
func (a *Area) withdrawRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/trainees/{id}/withdraw", "Withdraw a record logged in the last 15 minutes by the one withdrawing it (a trainee withdraws only what she logged herself, the studio only what it logged): a workout (with the PRs it set), a check-in no later one of the day updated, a weigh-in, a measurement or a form's answers (the form is pending again).", a.withdraw,
		lane.Trainee(auth.ScopeTrainingWrite), lane.Allow("id", "kind"))
}

type withdrawInput struct {
	RecordID string `json:"recordId" jsonschema:"The record's id, as logging it answered: ses_…, chk_…, wgt_…, msr_… or frs_…." lane:"minLength=1,maxLength=100"`
}

type withdrawn struct {
	ID   string `json:"id"`
	Kind string `json:"kind" jsonschema:"workout, check_in, weigh_in, measurement or form_answers."`
}

var withdrawnKinds = map[ids.Kind]string{ids.Session: "workout", ids.CheckIn: "check_in", ids.Weight: "weigh_in", ids.Measurement: "measurement", ids.FormResponse: "form_answers"}

func (a *Area) withdraw(c *lane.Call, in *withdrawInput) (withdrawn, error) {
	kind, _ := ids.KindOf(in.RecordID)
	name, ok := withdrawnKinds[kind]
	if !ok {
		return withdrawn{}, lane.InvalidField("recordId", fmt.Sprintf("recordId must be a workout (ses_…), check-in (chk_…), weigh-in (wgt_…), measurement (msr_…) or form answers (frs_…) id; %q is none of them.", in.RecordID))
	}
	err := c.Studio().WithdrawRecord(c.Ctx, c.ID(), in.RecordID, c.Author(), c.Now().Add(-WithdrawWindow))
	if errors.Is(err, store.ErrNotFound) {
		who, fix := "the studio", "Correct the record itself instead."
		if c.P.IsTrainee() {
			who, fix = "this trainee", "Ask the coach to correct it."
		}
		return withdrawn{}, &lane.Error{Status: http.StatusNotFound, Code: lane.CodeNotFound, Message: fmt.Sprintf(
			"Nothing to withdraw: %s is not a %s %s logged in the last %d minutes (only its author withdraws a record; a check-in a later one of the day updated, and a planned session completed by logging, cannot be withdrawn). %s",
			in.RecordID, name, who, int(WithdrawWindow/time.Minute), fix)}
	}
	return withdrawn{ID: in.RecordID, Kind: name}, err
}
