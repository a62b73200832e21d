package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/otherwise/perform/internal/store"
)

// SwitchStudioCommand is the exact message with which a coach whose phone is
// on several studios chooses the studio again.
const SwitchStudioCommand = "החלף סטודיו"

// errNoCoach means no active coach is linked to the phone.
var errNoCoach = errors.New("no active coach has this phone")

// resolveCoach works out who is writing and for which studio. A phone's
// studio is its coach's choice, so a studio that adds a known phone later
// cannot take the conversation over:
//
//  1. a pinned coach (AGENT_PHONE_COACHES) when it exists and is active;
//  2. a numeric answer to a pending studio question links the chosen coach;
//  3. the switch command asks the question again;
//  4. the phone's link, while its coach is active with this phone;
//  5. the one active coach with the phone, linked from now on (unless the
//     phone was linked to another studio whose coach left: then it asks);
//  6. with several, the coach is asked which studio.
//
// A non-nil stop ends the turn with it (a question or a confirmation). A
// new link or question is not written here but with the turn's decision,
// in its transaction: a turn that crashes before it re-decides from the
// same state, and the coach's answer is never mistaken for a question.
func (a *Agent) resolveCoach(ctx context.Context, t *turn) (coach store.CoachRef, stop *decision, link *store.PhoneLink, err error) {
	coach, stop, err = a.resolve(ctx, t, &link)
	return coach, stop, link, err
}

func (a *Agent) resolve(ctx context.Context, t *turn, newLink **store.PhoneLink) (store.CoachRef, *decision, error) {
	sender := t.Phone
	if id, ok := a.pins[sender]; ok {
		ref, err := a.st.ActiveCoachByID(ctx, id)
		if err == nil {
			return ref, nil, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return ref, nil, err
		}
		a.log.WarnContext(ctx, "agent: AGENT_PHONE_COACHES pins a coach that does not exist or is inactive; falling back to the phone lookup", "coach", id)
	}
	ag := a.st.Agent()
	choice, err := ag.StudioChoice(ctx, sender)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.CoachRef{}, nil, err
	}
	if n, ok := choiceNumber(t.Text, len(choice)); ok {
		candidates, err := ag.ActiveCoachesByPhone(ctx, sender)
		if err != nil {
			return store.CoachRef{}, nil, err
		}
		for _, c := range candidates {
			if c.Coach.ID == choice[n-1] {
				*newLink = a.link(sender, c)
				return c, &decision{messages: []string{msgStudioChosen(c.StudioName)}, outcome: "studio_chosen"}, nil
			}
		}
		// The chosen coach left or changed phone since the question: ask again.
		return askStudio(candidates)
	}
	if strings.TrimSpace(t.Text) == SwitchStudioCommand {
		candidates, err := ag.ActiveCoachesByPhone(ctx, sender)
		if err != nil {
			return store.CoachRef{}, nil, err
		}
		if len(candidates) == 1 {
			c := candidates[0]
			*newLink = a.link(sender, c)
			return c, &decision{messages: []string{msgOnlyStudio(c.StudioName)}, outcome: "studio_chosen"}, nil
		}
		return askStudio(candidates)
	}
	link, err := ag.PhoneLink(ctx, sender)
	lostStudio := "" // the studio of a link that no longer holds
	switch {
	case err == nil:
		ref, err := a.st.ActiveCoachByID(ctx, link.CoachID)
		if err == nil && ref.StudioID == link.StudioID && ref.Coach.Phone != nil && phoneKey(*ref.Coach.Phone) == sender {
			if choice != nil {
				// Asked to switch, the coach wrote something else: stay.
				if err := ag.ClearStudioChoice(ctx, sender); err != nil {
					return ref, nil, err
				}
			}
			return ref, nil, nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return ref, nil, err
		}
		// The linked coach is gone or has another phone now. The link stays
		// until the coach's next choice replaces it, so every turn until
		// then (a resumed one too) decides the same.
		lostStudio = link.StudioID
	case !errors.Is(err, store.ErrNotFound):
		return store.CoachRef{}, nil, err
	}
	candidates, err := ag.ActiveCoachesByPhone(ctx, sender)
	if err != nil {
		return store.CoachRef{}, nil, err
	}
	// One candidate is taken without a question, unless the phone talked
	// to another studio until now: moving it elsewhere is the coach's call.
	if len(candidates) == 1 && (lostStudio == "" || candidates[0].StudioID == lostStudio) {
		*newLink = a.link(sender, candidates[0])
		return candidates[0], nil, nil
	}
	return askStudio(candidates)
}

// link is the record that the phone talks to c's studio.
func (a *Agent) link(sender string, c store.CoachRef) *store.PhoneLink {
	return &store.PhoneLink{Phone: sender, StudioID: c.StudioID, CoachID: c.Coach.ID, ChosenAt: a.now()}
}

// askStudio asks the coach which of the candidates' studios to work with;
// the decision carries the numbered list the answer will refer to.
func askStudio(candidates []store.CoachRef) (store.CoachRef, *decision, error) {
	if len(candidates) == 0 {
		return store.CoachRef{}, nil, errNoCoach
	}
	coachIDs := make([]string, len(candidates))
	for i, c := range candidates {
		coachIDs[i] = c.Coach.ID
	}
	return store.CoachRef{}, &decision{messages: []string{msgChooseStudio(candidates)}, ask: coachIDs, outcome: "choose_studio"}, nil
}

// choiceNumber reads an answer to the studio question: a number from 1 to n.
func choiceNumber(text string, n int) (int, bool) {
	if n == 0 {
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(text), "."))
	if err != nil || v < 1 || v > n {
		return 0, false
	}
	return v, true
}

// msgChooseStudio is the numbered list of studios; a studio listed twice
// (two coach rows with one phone) names the coach too.
func msgChooseStudio(candidates []store.CoachRef) string {
	seen := map[string]int{}
	for _, c := range candidates {
		seen[c.StudioID]++
	}
	var b strings.Builder
	b.WriteString("המספר הזה רשום כמאמן בכמה סטודיואים. עם איזה סטודיו לעבוד? שלחו רק את המספר:\n")
	for i, c := range candidates {
		if seen[c.StudioID] > 1 {
			fmt.Fprintf(&b, "%d. %s (%s)\n", i+1, c.StudioName, c.Coach.Name)
		} else {
			fmt.Fprintf(&b, "%d. %s\n", i+1, c.StudioName)
		}
	}
	fmt.Fprintf(&b, "\nאפשר להחליף סטודיו בכל שלב: שלחו \"%s\".", SwitchStudioCommand)
	return b.String()
}

func msgStudioChosen(studio string) string {
	return fmt.Sprintf("מעכשיו אני עובד מול הסטודיו \"%s\". כדי לעבור לסטודיו אחר שלחו: %s", studio, SwitchStudioCommand)
}

func msgOnlyStudio(studio string) string {
	return fmt.Sprintf("המספר הזה רשום רק בסטודיו \"%s\", ואני כבר עובד מולו.", studio)
}
