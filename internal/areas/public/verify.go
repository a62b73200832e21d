package public

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/phone"
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
	// start stores no code (and answers the same), so nothing confirms.
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

func codeHash(hash []byte, code string) []byte {
	h := sha256.Sum256(append(slices.Clone(hash), []byte("\x00"+code)...))
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

func (a *Area) verifyRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/public/verification/start", "Send a one-time code over WhatsApp to the phone on the trainee record matching the claimed phone or trainee id; the answer is the same whether or not one matches.",
		func(c *lane.Call, in *startVerificationInput) (verificationAnswer, error) {
			conv, err := verifying(c)
			if err != nil {
				return verificationAnswer{}, err
			}
			claimedPhone, claimedID := conv.Phone, conv.ExternalID
			if in.Phone != nil {
				claimedPhone = *in.Phone
			}
			if in.ExternalID != nil {
				claimedID = *in.ExternalID
			}
			now := c.Now().UTC()
			row := store.PlatformConversation{Hash: conversationHash(c.P.CredentialID, conv), StudioID: c.P.StudioID, CodeExpiresAt: now.Add(verifyCodeTTL), CreatedAt: now}
			if t, ok := a.claimedTrainee(c, claimedPhone, claimedID); ok && a.mayNotify(c, t.id) {
				code, err := newCode()
				if err != nil {
					return verificationAnswer{}, err
				}
				row.TraineeID, row.CodeHash = t.id, codeHash(row.Hash, code)
				if !c.DryRun() { // a dry run rolls the row back: no code goes out
					a.sendCode(c.P.StudioName, t.phone, code)
				}
			}
			if err := c.DB().Platform().PutConversation(c.Ctx, row); err != nil {
				return verificationAnswer{}, err
			}
			// A new verification ends the conversation's earlier one, payload included.
			if err := a.brokerSignedOut(c, conv, row.Hash, now, false); err != nil {
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
			hash := conversationHash(c.P.CredentialID, conv)
			row, err := c.DB().Platform().Conversation(c.Ctx, hash)
			now := c.Now().UTC()
			switch {
			case errors.Is(err, store.ErrNotFound) || err == nil && row.StudioID != c.P.StudioID:
				return verificationAnswer{}, verifyRefusal("No code was sent in this conversation; call start_verification first.")
			case err != nil:
				return verificationAnswer{}, err
			case row.Tries >= verifyMaxTries:
				return verificationAnswer{}, verifyRefusal(fmt.Sprintf("%d wrong codes: this code is locked. Call start_verification for a new one.", verifyMaxTries))
			case !now.Before(row.CodeExpiresAt):
				return verificationAnswer{}, verifyRefusal("The code expired; call start_verification for a new one.")
			}
			if row.CodeHash == nil || subtle.ConstantTimeCompare(row.CodeHash, codeHash(hash, strings.TrimSpace(in.Code))) != 1 {
				row.Tries++
				if err := c.DB().Platform().PutConversation(c.Ctx, row); err != nil {
					return verificationAnswer{}, err
				}
				if row.Tries >= verifyMaxTries {
					return verificationAnswer{}, verifyRefusal(fmt.Sprintf("That code is not right, and after %d wrong codes it is locked. Call start_verification for a new one.", verifyMaxTries))
				}
				return verificationAnswer{}, verifyRefusal(fmt.Sprintf("That code is not right; %d tries left. Ask the person to read it again from WhatsApp.", verifyMaxTries-row.Tries))
			}
			until := now.Add(verifiedFor)
			row.CodeHash, row.VerifiedAt, row.VerifiedUntil = nil, &now, &until
			if err := c.DB().Platform().PutConversation(c.Ctx, row); err != nil {
				return verificationAnswer{}, err
			}
			a.brokerVerified(c, conv, hash, row.TraineeID, now, until)
			return verificationAnswer{Verified: true, Message: "Verified: from now on this conversation reads and records this trainee's own training, for 24 hours."}, nil
		}, lane.Platform())

	lane.Add(rs, "POST", "/public/verification/sign-out", "End this conversation's verification: its next calls are anonymous again.",
		func(c *lane.Call, _ *lane.NoInput) (verificationAnswer, error) {
			conv, err := verifying(c)
			if err != nil {
				return verificationAnswer{}, err
			}
			now := c.Now().UTC()
			// A row of no trainee and no code: nothing confirms it, nothing resolves to it.
			row := store.PlatformConversation{Hash: conversationHash(c.P.CredentialID, conv), StudioID: c.P.StudioID, CodeExpiresAt: now, CreatedAt: now}
			if err := c.DB().Platform().PutConversation(c.Ctx, row); err != nil {
				return verificationAnswer{}, err
			}
			if err := a.brokerSignedOut(c, conv, row.Hash, now, true); err != nil {
				return verificationAnswer{}, err
			}
			return verificationAnswer{Message: "Signed out: this conversation no longer reads the trainee's data. To see it again, call start_verification."}, nil
		}, lane.Platform())
}

func verifyRefusal(message string) *lane.Error {
	return &lane.Error{Status: http.StatusUnprocessableEntity, Code: lane.CodeValidation, Message: message}
}

// mayNotify counts one code for the trainee; false when over the hour's limit.
func (a *Area) mayNotify(c *lane.Call, traineeID string) bool {
	d, err := a.codeSends.Allow(c.Ctx, "verify:"+c.P.StudioID+":"+traineeID)
	if err != nil {
		c.Logger().WarnContext(c.Ctx, "counting a verification code failed", "err", err)
		return false
	}
	return d.Allowed
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

func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// sendCode delivers the code in the background, so the answer comes as
// fast whether or not a trainee matched; Close waits for it.
func (a *Area) sendCode(studioName, e164, code string) {
	started := a.broker.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if a.codes == nil {
			a.logger.InfoContext(ctx, "agent platform verification code (no WhatsApp gateway is configured, so it is written here)", "phone", phone.Masked(e164), "code", code)
			return
		}
		text := fmt.Sprintf("%s verification code: %s\nIt works for %d minutes. Give it only to the %s assistant you are talking to.", studioName, code, int(verifyCodeTTL/time.Minute), studioName)
		if err := a.codes.Send(ctx, strings.TrimPrefix(e164, "+"), text); err != nil {
			a.logger.WarnContext(ctx, "the verification code could not be sent over WhatsApp", "phone", phone.Masked(e164), "err", err)
		}
	})
	if !started {
		a.logger.Warn("shutting down, so the verification code was not sent", "phone", phone.Masked(e164))
	}
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

// Conversations is keys with agent platforms' verified conversations: a
// platform key's call in a conversation verified as a trainee is that
// trainee, with a trainee's scopes, so the lane's trainee policy applies as
// it is. Read on every request, never kept: the verification is the
// conversation's, not the key's.
func Conversations(keys auth.Authenticator, st store.Store) auth.Authenticator {
	return conversations{keys: keys, store: st}
}

type conversations struct {
	keys  auth.Authenticator
	store store.Store
}

func (c conversations) Authenticate(ctx context.Context, r *http.Request) (*auth.Principal, error) {
	p, err := c.keys.Authenticate(ctx, r)
	if err != nil || p.Kind != auth.KindPlatformKey {
		return p, err
	}
	if trainee, ok := verifiedTrainee(ctx, c.store, p.CredentialID, p.StudioID, time.Now()); ok {
		p.Subject, p.Scopes = trainee, slices.Clone(auth.TraineeScopes)
	}
	return p, nil
}
