package lane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// The trainee policy: every rule a trainee principal (a trainee's own OAuth
// grant) meets in the lane is here, applied by the route wrapper. A route
// opens to trainees with trainee(scope) and is then exactly one of:
//   - own: /trainees/{id}/…, whose id must be the grant's subject (`me`
//     names it);
//   - a record the lane traces to its trainee (a session, goal, benchmark
//     or program by id), which must be the subject's;
//   - shared(): no {id} and no person's data.
//
// Anything else is refused at start-up, as is a trainee route without an
// allow() list: a trainee's answer keeps only what that list names.

// Me is the {id} that names the trainee of the request's own connection.
const Me = "me"

// checkTraineeRoute panics on a route whose trainee opts do not make one of
// the three shapes above: a mistake found on every start, not by a trainee.
func (l *Lane) checkTraineeRoute(rt *route) {
	where := rt.method + " " + rt.path
	if rt.traineeScope == "" {
		// A route any credential may call (/validate) still says what a
		// trainee's answer keeps.
		if rt.shared || len(rt.traineeTools) > 0 || len(rt.allow) > 0 && rt.scope != "" {
			panic("lane: " + where + " has shared(), traineeTool() or allow() but no trainee(scope)")
		}
		return
	}
	if len(rt.allow) == 0 {
		panic("lane: " + where + " is open to trainees but has no allow() list")
	}
	switch {
	case rt.shared:
		if rt.idKind != "" || strings.Contains(rt.path, "{") {
			panic("lane: " + where + " is shared() but names a record by its path")
		}
	case rt.idKind == ids.Trainee, l.held.nouns[rt.idKind].Owner != nil:
	default:
		panic("lane: " + where + " is open to trainees but is neither /trainees/{id}/…, a record the lane can trace to its trainee (a noun declared with its Owner), nor shared()")
	}
}

// meNotFound answers `me` from a credential that speaks for no trainee.
func meNotFound(rt *route) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "No trainee is named me here: me names the trainee of a trainee's own connection (their OAuth grant). A studio key or a coach's connection names the trainee by id: use the trainee's id (trn_…) from GET " + Prefix + "/trainees/search in " + rt.method + " " + Prefix + rt.path + "."}
}

// resolveMe rewrites a /trainees/me/… path to the trainee principal's own
// id, for the handler and the audit alike.
func resolveMe(r *http.Request, rt *route, p *auth.Principal) *Error {
	if rt.idKind != ids.Trainee || r.PathValue("id") != Me {
		return nil
	}
	if !p.IsTrainee() {
		return meNotFound(rt)
	}
	r.SetPathValue("id", p.Subject)
	infoFrom(r.Context()).resourceID = p.Subject
	return nil
}

// checkOwner answers a trainee principal's {id} that is not theirs as not
// found, exactly as another studio's id is: nobody learns it exists.
func (l *Lane) checkOwner(r *http.Request, rt *route, p *auth.Principal) error {
	if !p.IsTrainee() || rt.traineeScope == "" || rt.idKind == "" {
		return nil
	}
	id := r.PathValue("id")
	if rt.idKind == ids.Trainee {
		if id != p.Subject {
			return NotFound(ids.Trainee, id)
		}
		return nil
	}
	if !ids.Valid(id, rt.idKind) {
		return NotFound(rt.idKind, id)
	}
	owner, err := l.ownerOf(r.Context(), l.store.Studio(p.StudioID), rt.idKind, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && owner != p.Subject {
		return NotFound(rt.idKind, id)
	}
	return err
}

// ownerOf is the trainee a record belongs to, by its noun's Owner.
func (l *Lane) ownerOf(ctx context.Context, ss store.StudioStore, kind ids.Kind, id string) (string, error) {
	if owner := l.held.nouns[kind].Owner; owner != nil {
		return owner(ctx, ss, id)
	}
	return "", fmt.Errorf("lane: no owner lookup for %s ids", kind)
}

// under prefixes each path: the fields of a record nested in an answer.
func Under(prefix string, paths ...string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = prefix + "." + p
	}
	return out
}

// PersonKey names one trainee's reads or writes for the person limits.
func PersonKey(studioID, traineeID string, write bool) string {
	kind := "read"
	if write {
		kind = "write"
	}
	return "person:" + studioID + ":" + traineeID + ":" + kind
}

// admitPerson counts a trainee principal's request against their reads or
// writes; over the limit it answers 429 with when to try again. The budget
// is of what was served: settle, called once the answer is written, gives
// the request back unless its status was 2xx, so a refusal (another
// trainee's id, a validation error) costs nothing. Counting first and
// refunding after keeps concurrent requests from ever exceeding the limit.
func (l *Lane) admitPerson(w http.ResponseWriter, r *http.Request, p *auth.Principal) (settle func(status int), ok bool) {
	settle = func(int) {}
	if !p.IsTrainee() {
		return settle, true
	}
	write := isWrite(r.Method)
	lim, what := l.traineeReads, "reads"
	if write {
		lim, what = l.traineeWrites, "writes"
	}
	if lim == nil {
		return settle, true
	}
	key := PersonKey(p.StudioID, p.Subject, write)
	d, ok := ratelimit.Check(w, r, lim, key, l.logger)
	if !ok {
		wait := ratelimit.RetryAfterSeconds(d.RetryAfter)
		at := l.now().Add(time.Duration(wait) * time.Second).UTC().Format("15:04 UTC")
		msg := fmt.Sprintf("This connection has used its %d %s of the hour. Try again in %s (at %s; Retry-After says %d seconds).", d.Limit, what, spokenWait(wait), at, wait)
		l.writeError(w, r, &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, Message: msg, RetryAfterSeconds: wait})
		return settle, false
	}
	settle = func(status int) {
		if status < 200 || status >= 300 {
			l.giveBack(r.Context(), lim, key)
		}
	}
	return settle, true
}

// giveBack refunds one request counted for key: owed even when the
// request's own context is done (the caller went away).
func (l *Lane) giveBack(ctx context.Context, lim ratelimit.Limiter, key string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := ratelimit.Refund(ctx, lim, key); err != nil {
		l.logger.Warn("lane: a refused request stays counted", "key", key, "error", err)
	}
}

// spokenWait says a wait in seconds as a person would: "40 seconds", "12 minutes".
func spokenWait(seconds int) string {
	switch {
	case seconds == 1:
		return "1 second"
	case seconds < 60:
		return fmt.Sprintf("%d seconds", seconds)
	case seconds == 60:
		return "1 minute"
	default:
		return fmt.Sprintf("%d minutes", (seconds+59)/60)
	}
}
