package toolset

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// TraineeInstructions are sent at initialize to a trainee's own connection.
const TraineeInstructions = `These tools read and record the training of the one person who connected (a trainee of a Perform studio): their sessions, program, benchmarks, body data, check-ins, injuries, goals and plan. No tool takes a trainee id; ids of records (ses_…, gol_…, bmk_…) come from the list tools. Lists page by offset: pass the previous answer's nextOffset. ` + tools.DateRule + `
Summaries come first: start with get_training_overview, list_sessions or get_weekly_debrief, and drill down (get_session_details) only when the question needs the sets.
Writes (log_workout, daily_check_in, record_injury…) are the person's own records; none messages anyone, but an injury opens a task for their coaches. ` + tools.RepeatSentence + `
Resources: perform://coach/persona is the studio's coaching voice (adopt it), perform://methodologies the training methodologies.
A failed call answers one sentence saying what to fix or when to try again: relay it or follow it.`

// resource URIs of the trainee server.
const (
	PersonaURI         = "perform://coach/persona"
	MethodologiesURI   = "perform://methodologies"
	SessionTemplateURI = "perform://sessions/{id}"
	ProgramTemplateURI = "perform://programs/{id}"
)

// addTraineeResources adds the resources a trainee's server reads through
// the lane, each with the bearer of the request that reads it.
func addTraineeResources(s *mcp.Server, opts Options, ex *executor.Executor) {
	if allowed(opts, auth.ScopeCoachRead) {
		s.AddResource(&mcp.Resource{URI: PersonaURI, Name: "coach_persona", Title: "Coaching persona", MIMEType: "application/json",
			Description: "The studio's coaching voice: tone, what to avoid, answer format, examples. Adopt it when coaching."},
			laneResource(opts, ex, func(string) string { return "/studio/persona" }))
		s.AddResource(&mcp.Resource{URI: MethodologiesURI, Name: "methodologies", Title: "Training methodologies", MIMEType: "application/json",
			Description: "Training methodologies by sport as concise facts: principles, phase structure, typical sessions."},
			laneResource(opts, ex, func(string) string { return "/methodologies" }))
	}
	if allowed(opts, auth.ScopeTrainingRead) {
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: SessionTemplateURI, Name: "session", Title: "A workout session", MIMEType: "application/json",
			Description: "One session in full (ses_… from list_sessions): exercises, targets, sets done, totals."},
			laneResource(opts, ex, recordPath("perform://sessions/", "/sessions/", ids.Session)))
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: ProgramTemplateURI, Name: "program", Title: "A program", MIMEType: "application/json",
			Description: "One program (prg_… from list_programs): its structure and where it stands."},
			laneResource(opts, ex, recordPath("perform://programs/", "/programs/", ids.Program)))
	}
}

// recordPath maps a record's resource URI to its lane path; "" for a URI
// that names no record of the kind (answered not found without a call).
func recordPath(prefix, lanePrefix string, kind ids.Kind) func(string) string {
	return func(uri string) string {
		id, ok := strings.CutPrefix(uri, prefix)
		if !ok || !ids.Valid(id, kind) {
			return ""
		}
		return lanePrefix + id
	}
}

// laneResource reads a resource as one GET through the executor; its text
// is the lane's data, a refusal the one mapping of lane errors (rpcError).
func laneResource(opts Options, ex *executor.Executor, path func(uri string) string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		p := path(uri)
		if p == "" {
			return nil, rpcError(executor.Result{Outcome: executor.LaneError, Code: "NOT_FOUND",
				Sentence: "There is no resource " + uri + "; session and program ids come from list_sessions and list_programs."}, uri)
		}
		r := ex.Read(ctx, apiKey(opts, req.Extra), tools.Request{Method: http.MethodGet, Path: p})
		switch r.Outcome {
		case executor.OK:
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(r.Data)}}}, nil
		case executor.Unavailable:
			r.Sentence = "Perform could not read " + uri + " just now; try again."
		}
		return nil, rpcError(r, uri)
	}
}

// pull is one lane read a prompt frames: what it is, and the data or the
// lane's sentence when it could not be read.
type pull struct {
	what string
	data json.RawMessage
	err  string
}

func (p pull) String() string {
	if p.err != "" {
		return "## " + p.what + "\n(not available: " + p.err + ")\n"
	}
	return "## " + p.what + "\n" + string(p.data) + "\n"
}

// get pulls one lane read through the executor, as a resource reads.
func get(ctx context.Context, opts Options, ex *executor.Executor, extra *mcp.RequestExtra, what, path string, query url.Values) pull {
	r := ex.Read(ctx, apiKey(opts, extra), tools.Request{Method: http.MethodGet, Path: path, Query: query})
	if r.Failed() {
		return pull{what: what, err: r.Sentence}
	}
	return pull{what: what, data: r.Data}
}

// addTraineePrompts adds the coaching conversations a trainee can start:
// each pulls its data through the lane with the request's bearer and
// frames the conversation around it.
func addTraineePrompts(s *mcp.Server, opts Options, ex *executor.Executor) {
	if !allowed(opts, auth.ScopeTrainingRead) {
		return
	}
	if allowed(opts, auth.ScopeCoachRead) {
		s.AddPrompt(&mcp.Prompt{Name: "weekly_plan_review", Title: "Review this week's plan",
			Description: "Coach through this week's plan. No arguments. Pulls this week's schedule (the active program), last week's completion (its debrief) and fatigue flags (the coaching insights)."},
			func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				pulls := []pull{
					get(ctx, opts, ex, req.Extra, "This week's schedule (active program)", "/trainees/me/programs/active", nil),
					get(ctx, opts, ex, req.Extra, "Last week: completion", "/trainees/me/debrief", url.Values{"week": {"last"}}),
					get(ctx, opts, ex, req.Extra, "Fatigue, consistency and progress flags", "/trainees/me/insights", nil),
				}
				return promptResult("Weekly plan review",
					"Coach me through this week's plan. Start from how last week went (sessions planned against completed), "+
						"then go through this week's sessions one by one, and adjust for any fatigue flag (suggest modify_training_session where a session should be lighter). "+
						"Keep it short, in the studio's coaching voice (perform://coach/persona), and end with one question for me.", pulls), nil
			})
	}
	s.AddPrompt(&mcp.Prompt{Name: "session_debrief", Title: "Debrief a session",
		Description: "Debrief one workout. Argument sessionId (ses_…, optional: the latest completed session). Pulls the session in full.",
		Arguments:   []*mcp.PromptArgument{{Name: "sessionId", Title: "Session", Description: "ses_… from list_sessions; default the latest completed session."}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			id := strings.TrimSpace(req.Params.Arguments["sessionId"])
			var pulls []pull
			if id == "" {
				latest := get(ctx, opts, ex, req.Extra, "Latest completed session", "/trainees/me/sessions", url.Values{"status": {"completed"}, "limit": {"1"}})
				var page struct {
					Items []struct {
						ID string `json:"id"`
					} `json:"items"`
				}
				if latest.err == "" && json.Unmarshal(latest.data, &page) == nil && len(page.Items) > 0 {
					id = page.Items[0].ID
				} else if latest.err == "" {
					latest.err = "no completed session is logged yet; log_workout records one"
				}
				if id == "" {
					pulls = append(pulls, latest)
				}
			}
			if id != "" {
				if !ids.Valid(id, ids.Session) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("sessionId %q is not a session id (ses_…); list_sessions gives them.", id)}
				}
				pulls = append(pulls, get(ctx, opts, ex, req.Extra, "The session ("+id+")", "/sessions/"+id, nil))
			}
			return promptResult("Session debrief",
				"Debrief this session with me: what went well, how the sets compared with the targets, how it felt (RPE, my feedback), "+
					"and one concrete thing for the next session. Be brief and in the studio's coaching voice (perform://coach/persona).", pulls), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "benchmark_check_in", Title: "Benchmark check-in",
		Description: "Review progress on one benchmark. Argument benchmark (its name, e.g. Back squat 1RM). Pulls the benchmarks: best, latest, 4- and 12-week change, recent values.",
		Arguments:   []*mcp.PromptArgument{{Name: "benchmark", Title: "Benchmark", Description: "Its name, as get_benchmarks shows it (Back squat 1RM, 5 km run).", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			name := strings.TrimSpace(req.Params.Arguments["benchmark"])
			if name == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "benchmark_check_in needs the argument benchmark: a benchmark's name, as get_benchmarks shows it."}
			}
			all := get(ctx, opts, ex, req.Extra, "Benchmarks", "/trainees/me/benchmarks", url.Values{"limit": {"200"}})
			pulls := []pull{matchBenchmark(all, name)}
			return promptResult("Benchmark check-in: "+name,
				"Check in on my "+name+": where it stands (best and latest), the trend over 4 and 12 weeks, whether it has stalled, "+
					"and what to do next to move it. If a new value is due, ask me for it and record it with record_benchmark. "+
					"Be brief and in the studio's coaching voice (perform://coach/persona).", pulls), nil
		})
}

// matchBenchmark keeps the benchmark named name (case-insensitive; else
// the ones whose name contains it) out of the list, or says which exist.
func matchBenchmark(all pull, name string) pull {
	if all.err != "" {
		return all
	}
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(all.data, &page) != nil {
		return all
	}
	var exact, partial []json.RawMessage
	var names []string
	for _, item := range page.Items {
		var b struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(item, &b)
		names = append(names, b.Name)
		switch {
		case strings.EqualFold(b.Name, name):
			exact = append(exact, item)
		case strings.Contains(strings.ToLower(b.Name), strings.ToLower(name)):
			partial = append(partial, item)
		}
	}
	found := exact
	if len(found) == 0 {
		found = partial
	}
	if len(found) == 0 {
		known := "none is recorded yet"
		if len(names) > 0 {
			known = "the benchmarks are " + strings.Join(names, ", ")
		}
		return pull{what: "Benchmark " + name, err: "no benchmark is named " + name + "; " + known}
	}
	data, _ := json.Marshal(found)
	return pull{what: "Benchmark " + name, data: data}
}

// promptResult is a prompt's one user message: the framing, then each pull.
func promptResult(description, framing string, pulls []pull) *mcp.GetPromptResult {
	var b strings.Builder
	b.WriteString(framing)
	b.WriteString("\n\n")
	for _, p := range pulls {
		b.WriteString(p.String())
	}
	return &mcp.GetPromptResult{Description: description, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.String()}}}}
}
