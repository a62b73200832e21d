package public

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/netguard"
	"github.com/otherwise/perform/internal/store"
)

// callbackWorker sends the callbacks.
type callbackWorker struct {
	river.WorkerDefaults[callbackArgs]
	a *Area
}

// Timeout bounds one try: the POST's 5 s, and the reads around it.
func (w *callbackWorker) Timeout(*river.Job[callbackArgs]) time.Duration { return 2 * callbackTimeout }

// NextRetry is the broker's backoff: 500 ms, then 1 s.
func (w *callbackWorker) NextRetry(job *river.Job[callbackArgs]) time.Time {
	return time.Now().Add(w.a.broker.opts.Backoff << max(job.Attempt-1, 0))
}

func (w *callbackWorker) Work(ctx context.Context, job *river.Job[callbackArgs]) error {
	a, args := w.a, job.Args
	if earlier, err := a.earlierCallback(ctx, job); err != nil {
		return err
	} else if earlier {
		return river.JobSnooze(orderWait)
	}
	token := args.Token
	if args.Sealed {
		if a.box == nil {
			a.callbackDone(ctx, args, 0, "not_opened")
			return nil
		}
		var err error
		if token, err = a.box.Open(args.Token, callbackAAD(args)); err != nil {
			a.callbackDone(ctx, args, 0, "not_opened")
			return nil
		}
	}
	body, outcome, err := a.callbackBody(ctx, args)
	if err != nil {
		return err
	}
	if outcome != "" {
		a.callbackDone(ctx, args, 0, outcome)
		return nil
	}
	payload, _ := json.Marshal(body)
	status, outcome, retry := a.broker.try(ctx, args.URL, token, payload)
	if retry && job.Attempt < job.MaxAttempts {
		a.logger.InfoContext(ctx, "agent platform: the auth-context callback failed; River tries again", "event", args.Event, "conversationId", args.ConversationID,
			"status", status, "reason", outcome, "attempt", job.Attempt)
		return fmt.Errorf("agent platform callback: %s (status %d)", outcome, status)
	}
	if retry {
		outcome = fmt.Sprintf("gave_up_after_%d_tries_%s", job.Attempt, outcome)
	}
	a.callbackDone(ctx, args, status, outcome)
	return nil
}

// callbackBody is the body of the callback, or the outcome that ends it
// unsent. A verified callback issues the forward payload now, bound to the
// conversation, if the conversation is still verified as it was asked for:
// a sign-out or a new verification since supersedes it.
func (a *Area) callbackBody(ctx context.Context, args callbackArgs) (authContext, string, error) {
	if args.Event != brokerVerified {
		return authContext{Authenticated: false}, "", nil
	}
	hash, err := hex.DecodeString(args.Conversation)
	if err != nil {
		return authContext{}, "bad_job", nil
	}
	var token string
	superseded := false
	err = a.store.InTx(ctx, func(tx store.Store) error {
		row, err := tx.Platform().Conversation(ctx, hash)
		if errors.Is(err, store.ErrNotFound) || err == nil && (row.TraineeID != args.TraineeID || row.VerifiedAt == nil || row.VerifiedAt.UnixMilli() != args.At.UnixMilli()) {
			superseded = true
			return nil
		}
		if err != nil {
			return err
		}
		token = newTraineeToken()
		return tx.Platform().PutToken(ctx, store.PlatformToken{Hash: auth.Hash(token), StudioID: args.StudioID, TraineeID: args.TraineeID,
			KeyID: args.KeyID, ConversationHash: hash, Scopes: slices.Clone(auth.TraineeScopes), ExpiresAt: args.Until, CreatedAt: args.At})
	})
	if err != nil {
		return authContext{}, "", err
	}
	if superseded {
		return authContext{}, "superseded", nil
	}
	name := ""
	if t, err := a.store.Studio(args.StudioID).GetTrainee(ctx, args.TraineeID); err == nil {
		name = t.FirstName
	}
	return authContext{
		Authenticated: true, UserContext: &userContext{ExternalID: args.TraineeID, Name: name},
		ForwardPayload: &token, ForwardAs: ForwardAs, Trust: "verified", ExpiresAt: args.Until.UTC().Format(time.RFC3339),
	}, "", nil
}

// callbackDone logs and audits a callback's last outcome.
func (a *Area) callbackDone(ctx context.Context, args callbackArgs, status int, outcome string) {
	if outcome == "accepted" {
		a.logger.InfoContext(ctx, "agent platform: the auth-context callback was accepted", "event", args.Event, "conversationId", args.ConversationID, "status", status)
	} else {
		a.logger.WarnContext(ctx, "agent platform: the auth-context callback failed", "event", args.Event, "conversationId", args.ConversationID, "status", status, "reason", outcome)
	}
	a.recordCallback(args, time.Now().UTC(), status, outcome)
}

// earlierCallback reports whether a callback of the job's conversation
// asked for before it is still unfinished (waiting, running or to be
// retried), on any instance.
func (a *Area) earlierCallback(ctx context.Context, job *river.Job[callbackArgs]) (bool, error) {
	client := a.jobs.Load()
	if client == nil {
		return false, nil
	}
	res, err := client.JobList(ctx, river.NewJobListParams().Kinds(callbackKind).States(jobs.UnfinishedStates()...).
		TagsAll(conversationTag(job.Args.Conversation)).OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(10))
	if err != nil {
		return false, fmt.Errorf("listing the conversation's callbacks: %w", err)
	}
	for _, j := range res.Jobs {
		if j.ID < job.ID {
			return true, nil
		}
	}
	return false, nil
}

// The platform's documented rejections, as its answers name them.
var rejections = []string{"missing_authenticated", "bad_forward_as", "bad_expires_at", "missing_token", "invalid_token"}

// try is one POST: its status, outcome and whether to try again.
func (b *broker) try(ctx context.Context, target, token string, payload []byte) (int, string, bool) {
	ctx, cancel := context.WithTimeout(ctx, callbackTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		return 0, refusedBadURL, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrRefused) {
			return 0, "address_refused", false
		}
		return 0, "network", true
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, maxCallbackReply))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return resp.StatusCode, "accepted", false
	case resp.StatusCode >= 500:
		return resp.StatusCode, "server_error", true
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return resp.StatusCode, "redirect_not_followed", false
	case resp.StatusCode == http.StatusNotFound:
		return resp.StatusCode, "conversation_not_found", false
	}
	return resp.StatusCode, rejectionReason(resp.StatusCode, reply), false
}

// rejectionReason is the documented reason a 4xx answer names (in an
// error, code or reason field, or anywhere in its text), else http_<status>.
func rejectionReason(status int, reply []byte) string {
	var v struct {
		Error  json.RawMessage `json:"error"`
		Code   string          `json:"code"`
		Reason string          `json:"reason"`
	}
	var fields []string
	if json.Unmarshal(reply, &v) == nil {
		var s string
		var obj struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &s) == nil {
			fields = append(fields, s)
		} else if json.Unmarshal(v.Error, &obj) == nil {
			fields = append(fields, obj.Code, obj.Message)
		}
		fields = append(fields, v.Code, v.Reason)
	}
	for _, f := range fields {
		if slices.Contains(rejections, f) {
			return f
		}
	}
	text := string(reply)
	for _, r := range rejections {
		if strings.Contains(text, r) {
			return r
		}
	}
	return "http_" + strconv.Itoa(status)
}
