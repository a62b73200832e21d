package public

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// An agent platform's end user proves who they are with a one-time code
// sent over WhatsApp to the phone on their trainee record. The
// conversation (platform key, tenant id, conversation id) is then
// verified, and its later calls act as that trainee: the lane's trainee
// policy (`me`, ownership, scrubbing, per-person limits) applies as to any
// trainee principal.
const (
	verifyCodeTTL  = 10 * time.Minute
	verifyMaxTries = 5
	verifiedFor    = 24 * time.Hour
	// VerifyCodesPerHour bounds the codes one trainee is sent; over it a
	// start issues a code to nobody (and answers the same), so nothing
	// confirms.
	VerifyCodesPerHour = 5
)

type startVerificationInput struct {
	Phone      *string `json:"phone,omitempty" jsonschema:"The phone the person gives; when left out, the phone the platform reported for the conversation." lane:"maxLength=40"`
	ExternalID *string `json:"externalId,omitempty" jsonschema:"The person's trainee id (trn_…), when the platform knows it." lane:"maxLength=64"`
}

type confirmVerificationInput struct {
	Code string `json:"code" jsonschema:"The 6-digit code the person received over WhatsApp." lane:"minLength=1,maxLength=12"`
}

type verificationAnswer struct {
	Verified bool   `json:"verified"`
	Message  string `json:"message"`
}

// conversationHash keys a conversation's row: the platform's ids are not kept.
func conversationHash(keyID string, c auth.Conversation) []byte {
	h := sha256.Sum256([]byte(keyID + "\x00" + c.TenantID + "\x00" + c.ID))
	return h[:]
}

// verifying is the conversation of a verification call, or the sentence
// saying the call needs one.
func verifying(c *lane.Call) (auth.Conversation, error) {
	conv, ok := auth.ConversationFrom(c.Ctx)
	if !ok || conv.ID == "" {
		return conv, &lane.Error{Status: http.StatusUnprocessableEntity, Code: lane.CodeValidation,
			Message: "Verification belongs to a conversation: the agent platform must send X-Sa-Conversation-Id on the call to /mcp."}
	}
	return conv, nil
}

// subjectOf is a conversation's subject in internal/otc.
func subjectOf(hash []byte) string { return hex.EncodeToString(hash) }

// Answers every caller gets alike, whoever the claim names.
const (
	codesUnavailable = "No code could be sent now: the service that counts the codes sent does not answer. Try start_verification again in a few minutes."
	codeUnavailable  = "UNAVAILABLE"
)

func (a *Area) verifyRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/public/verification/start", "Send a one-time code over WhatsApp to the phone on the trainee record matching the claimed phone or trainee id; the answer is the same whether or not one matches.",
		func(c *lane.Call, in *startVerificationInput) (verificationAnswer, error) {
			conv, err := verifying(c)
			if err != nil {
				return verificationAnswer{}, err
			}
			// Before any trainee is looked up: the answer must not tell
			// whether the phone is a trainee's.
			if a.sendsDown() {
				return verificationAnswer{}, unavailable()
			}
			claimedPhone, claimedID := conv.Phone, conv.ExternalID
			if in.Phone != nil {
				claimedPhone = *in.Phone
			}
			if in.ExternalID != nil {
				claimedID = *in.ExternalID
			}
			now := c.Now().UTC()
			hash := conversationHash(c.P.CredentialID, conv)
			subject := subjectOf(hash)
			// Every start counts one send: a trainee's when the claim
			// matches one, else the conversation's, so a match and a
			// miss cost the same and fail alike when the count cannot be
			// kept. A miss, or a trainee over the limit, gets a code sent
			// to nobody: the conversation's earlier code stops working
			// either way.
			req := otc.Request{Subject: subject, Person: "conversation:" + subject, NoSend: c.DryRun()}
			if t, ok := a.claimedTrainee(c, claimedPhone, claimedID); ok {
				req = otc.Request{Subject: subject, Person: c.P.StudioID + ":" + t.id, To: t.phone, Data: t.id, Note: c.P.StudioName, NoSend: c.DryRun()}
			}
			err = c.DB().InTx(c.Ctx, func(tx store.Store) error {
				codes := a.codes.WithTx(tx)
				_, err := codes.Issue(c.Ctx, req)
				if errors.Is(err, otc.ErrThrottled) {
					_, err = codes.Issue(c.Ctx, otc.Request{Subject: subject, NoSend: true})
				}
				if err != nil {
					return err
				}
				// A new verification ends the conversation's earlier one, payload included.
				if err := tx.Platform().PutConversation(c.Ctx, store.PlatformConversation{Hash: hash, StudioID: c.P.StudioID, CreatedAt: now}); err != nil {
					return err
				}
				return a.brokerSignedOut(c, tx, conv, hash, now, false)
			})
			if errors.Is(err, ratelimit.ErrRedisDown) {
				c.Logger().WarnContext(c.Ctx, "agent platform: no verification code was sent: the code count cannot be kept", "err", err)
				return verificationAnswer{}, unavailable()
			}
			if err != nil {
				return verificationAnswer{}, err
			}
			return verificationAnswer{Message: fmt.Sprintf("If a trainee of %s has that phone, a code is on its way to it over WhatsApp. Ask the person for the code and call confirm_verification with it; it works for %d minutes.", c.P.StudioName, int(verifyCodeTTL/time.Minute))}, nil
		}, lane.Platform(), lane.Created())

	lane.Add(rs, "POST", "/public/verification/confirm", "Check the one-time code of this conversation's verification; when right, the conversation acts as the trainee for 24 hours. Locked after 5 wrong codes.",
		func(c *lane.Call, in *confirmVerificationInput) (verificationAnswer, error) {
			conv, err := verifying(c)
			if err != nil {
				return verificationAnswer{}, err
			}
			if c.DryRun() {
				// A dry run's transaction would roll the try back: guesses
				// would go uncounted.
				return verificationAnswer{}, verifyRefusal("confirm_verification has no dry run: every code tried is counted. Call it without Prefer: dry-run.")
			}
			hash := conversationHash(c.P.CredentialID, conv)
			res, err := a.codes.WithStore(c.DB().Codes()).Verify(c.Ctx, subjectOf(hash), in.Code)
			var refusal *otc.Refusal
			switch {
			case errors.Is(err, otc.ErrNoCode):
				return verificationAnswer{}, verifyRefusal("No code is waiting in this conversation: none was sent, or it was used. Call start_verification first.")
			case errors.Is(err, otc.ErrExpired):
				return verificationAnswer{}, verifyRefusal("The code expired; call start_verification for a new one.")
			case errors.Is(err, otc.ErrLocked):
				return verificationAnswer{}, verifyRefusal(fmt.Sprintf("%d wrong codes: this code is locked. Call start_verification for a new one.", verifyMaxTries))
			case errors.Is(err, otc.ErrWrong) && errors.As(err, &refusal) && refusal.TriesLeft > 0:
				return verificationAnswer{}, verifyRefusal(fmt.Sprintf("That code is not right; %d tries left. Ask the person to read it again from WhatsApp.", refusal.TriesLeft))
			case errors.Is(err, otc.ErrWrong):
				return verificationAnswer{}, verifyRefusal(fmt.Sprintf("That code is not right, and after %d wrong codes it is locked. Call start_verification for a new one.", verifyMaxTries))
			case err != nil:
				return verificationAnswer{}, err
			}
			// A code sent to nobody binds no trainee: even guessed right, it is wrong.
			if res.Data == "" {
				return verificationAnswer{}, verifyRefusal("That code is not right. Call start_verification for a new one.")
			}
			if _, err := c.Studio().GetTrainee(c.Ctx, res.Data); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return verificationAnswer{}, verifyRefusal("That code is not right. Call start_verification for a new one.")
				}
				return verificationAnswer{}, err
			}
			now := c.Now().UTC().Truncate(time.Millisecond)
			until := now.Add(verifiedFor)
			err = c.DB().InTx(c.Ctx, func(tx store.Store) error {
				if err := tx.Platform().PutConversation(c.Ctx, store.PlatformConversation{Hash: hash, StudioID: c.P.StudioID, TraineeID: res.Data,
					VerifiedAt: &now, VerifiedUntil: &until, CreatedAt: now}); err != nil {
					return err
				}
				return a.brokerVerified(c, tx, conv, hash, res.Data, now, until)
			})
			if err != nil {
				return verificationAnswer{}, err
			}
			return verificationAnswer{Verified: true, Message: "Verified: from now on this conversation reads and records this trainee's own training, for 24 hours."}, nil
		}, lane.Platform())

	lane.Add(rs, "POST", "/public/verification/sign-out", "End this conversation's verification: its next calls are anonymous again.",
		func(c *lane.Call, _ *lane.NoInput) (verificationAnswer, error) {
			conv, err := verifying(c)
			if err != nil {
				return verificationAnswer{}, err
			}
			now := c.Now().UTC()
			hash := conversationHash(c.P.CredentialID, conv)
			err = c.DB().InTx(c.Ctx, func(tx store.Store) error {
				if err := a.codes.WithStore(tx.Codes()).Revoke(c.Ctx, subjectOf(hash)); err != nil {
					return err
				}
				// A row of no trainee: nothing resolves to it.
				if err := tx.Platform().PutConversation(c.Ctx, store.PlatformConversation{Hash: hash, StudioID: c.P.StudioID, CreatedAt: now}); err != nil {
					return err
				}
				return a.brokerSignedOut(c, tx, conv, hash, now, true)
			})
			if err != nil {
				return verificationAnswer{}, err
			}
			return verificationAnswer{Message: "Signed out: this conversation no longer reads the trainee's data. To see it again, call start_verification."}, nil
		}, lane.Platform())
}

func verifyRefusal(message string) *lane.Error {
	return &lane.Error{Status: http.StatusUnprocessableEntity, Code: lane.CodeValidation, Message: message}
}

func unavailable() *lane.Error {
	return &lane.Error{Status: http.StatusServiceUnavailable, Code: codeUnavailable, Message: codesUnavailable}
}

type claimed struct{ id, phone string }

// claimedTrainee finds the trainee of this studio the claim names: by
// trainee id, else by phone; the trainee must have a phone to send to.
func (a *Area) claimedTrainee(c *lane.Call, claimedPhone, claimedID string) (claimed, bool) {
	if claimedID != "" && ids.Valid(claimedID, ids.Trainee) {
		if t, err := c.Studio().GetTrainee(c.Ctx, claimedID); err == nil && t.Phone != "" {
			return claimed{t.ID, t.Phone}, true
		}
	}
	if claimedPhone == "" {
		return claimed{}, false
	}
	e164, err := phone.Normalize(claimedPhone, c.P.Region)
	if err != nil {
		return claimed{}, false
	}
	t, err := c.Studio().TraineeByPhone(c.Ctx, e164)
	if err != nil || t.Phone == "" {
		return claimed{}, false
	}
	return claimed{t.ID, t.Phone}, true
}

// verifiedTrainee is the trainee a platform key's conversation was
// verified as, while the verification lasts. A call that replays a
// forward payload (X-Perform-Trainee-Token) is decided by the payload
// alone: the trainee when it is live and bound to this studio, platform
// key and conversation, else anonymous, even in a verified conversation
// (a payload that does not fit is someone else's). The verdict goes to
// the audit with the conversation.
func verifiedTrainee(ctx context.Context, st store.Store, keyID, studioID string, now time.Time) (string, bool) {
	conv, ok := auth.ConversationFrom(ctx)
	if !ok {
		return "", false
	}
	if conv.TraineeToken != "" {
		trainee, verdict := tokenTrainee(ctx, st, conv.TraineeToken, keyID, studioID, conversationHash(keyID, conv), now)
		conv.Token.Set(verdict)
		return trainee, verdict == auth.TokenVerified
	}
	if conv.ID == "" {
		return "", false
	}
	row, err := st.Platform().Conversation(ctx, conversationHash(keyID, conv))
	if err != nil || row.StudioID != studioID || row.TraineeID == "" || row.VerifiedUntil == nil || !now.Before(*row.VerifiedUntil) {
		return "", false
	}
	return row.TraineeID, true
}

// Conversations is the agent platforms' verified conversations, for
// credentials.Authenticator: a platform key's call in a conversation
// verified as a trainee is that trainee, with a trainee's scopes, so the
// lane's trainee policy applies as it is. Read on every request, never kept: the
// verification is the conversation's, not the key's.
func Conversations(st store.Store) credentials.Conversations { return conversations{store: st} }

type conversations struct{ store store.Store }

func (c conversations) VerifiedTrainee(ctx context.Context, keyID, studioID string) (string, bool) {
	return verifiedTrainee(ctx, c.store, keyID, studioID, time.Now())
}
