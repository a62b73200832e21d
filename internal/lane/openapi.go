package lane

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The OpenAPI 3.1 document is built at start from the routes: the same
// request schemas that validate requests, and schemas inferred from the
// response types. OpenAPI 3.1 schemas are JSON Schema 2020-12, which is
// what jsonschema-go produces, so they go in as they are.

var pathParam = regexp.MustCompile(`\{([a-zA-Z]+)\}`)

// scopeList is a route's scope as OpenAPI lists it under security.
func scopeList(scope string) []any {
	if scope == "" {
		return []any{}
	}
	return []any{scope}
}

func (l *Lane) buildOpenAPI() []byte {
	paths := map[string]map[string]any{}
	for _, rt := range l.routes {
		op := map[string]any{
			"operationId": operationID(rt),
			"summary":     rt.summary,
			"security":    []any{map[string]any{"studioKey": scopeList(rt.scope)}},
			"responses":   responses(rt),
		}
		if rt.tool != "" {
			op["x-perform-tool"] = rt.tool
		}
		if rt.traineeScope != "" {
			op["x-perform-trainee-scope"] = rt.traineeScope // a trainee's own grant, for its own records
		}
		if rt.scope != "" {
			op["x-perform-scope"] = rt.scope
		}
		if rt.adminOnly() {
			op["x-perform-app-only"] = true
			op["description"] = "For the studio's own apps (scope studio:admin); never exposed as an AI tool."
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			desc := "The " + m[1] + "."
			if m[1] == "id" && rt.idKind != "" {
				desc = "The " + rt.idKind.Noun() + " id (" + string(rt.idKind) + "_…), from " + rt.idKind.Source() + "."
			}
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "description": desc, "schema": map[string]any{"type": "string"}})
		}
		if rt.method == http.MethodGet || rt.method == http.MethodDelete {
			for _, name := range rt.input.object.Names() {
				p := rt.input.object.Property(name)
				params = append(params, map[string]any{"name": name, "in": "query", "required": p.Required, "description": p.Schema.Description, "schema": p.Schema})
			}
		} else {
			op["requestBody"] = map[string]any{
				"required": len(rt.input.schema.Required) > 0,
				"content":  map[string]any{"application/json": map[string]any{"schema": rt.input.schema}},
			}
		}
		if isWrite(rt.method) {
			params = append(params, idempotencyParam, preferParam)
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if paths[rt.path] == nil {
			paths[rt.path] = map[string]any{}
		}
		paths[rt.path][strings.ToLower(rt.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Perform automation lane",
			"version":     "1",
			"description": "The one HTTP API through which every AI surface and integration reads and writes a studio's data. Every answer is an envelope: {ok: true, data, requestId} or {ok: false, error: {code, message}, requestId}. Lists take limit (1-200, default 50) and offset and answer {items, total, nextOffset}.",
		},
		"servers": []any{map[string]any{"url": Prefix}},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"studioKey": map[string]any{"type": "http", "scheme": "bearer", "description": "A studio API key, pf_live_…"},
			},
			"schemas": map[string]any{"ErrorEnvelope": errorEnvelopeSchema()},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("lane: OpenAPI document: " + err.Error())
	}
	return b
}

// idempotencyParam documents the Idempotency-Key header of every write.
var idempotencyParam = map[string]any{
	"name":     IdempotencyHeader,
	"in":       "header",
	"required": false,
	"description": "Makes the write safe to retry: 1 to 255 visible ASCII characters, new for each new request. " +
		"A retry of the same request (method, path, query and body) with the same key within 24 hours gets the first answer again, " +
		"with the header Idempotent-Replayed: true, and writes nothing. The same key with a different request is refused (422 VALIDATION); " +
		"a retry while the first request still runs is refused (409 CONFLICT) and may be sent again a few seconds later. " +
		"Answers 5xx, 401 and 429 are not kept, so their retry runs for real. Keys are per studio.",
	"schema": map[string]any{"type": "string", "minLength": 1, "maxLength": maxIdempotencyKey, "pattern": "^[\\x21-\\x7E]+$"},
}

func operationID(rt *route) string {
	if rt.tool != "" {
		return rt.tool
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.method))
	for part := range strings.SplitSeq(rt.path, "/") {
		part = strings.Trim(part, "{}")
		for w := range strings.SplitSeq(part, "-") {
			if w != "" {
				b.WriteString(strings.ToUpper(w[:1]) + w[1:])
			}
		}
	}
	return b.String()
}

func responses(rt *route) map[string]any {
	ok := &jsonschema.Schema{
		Type:     "object",
		Required: []string{"ok", "data", "requestId"},
		Properties: map[string]*jsonschema.Schema{
			"ok":        {Const: jsonschema.Ptr[any](true)},
			"data":      rt.output,
			"requestId": {Type: "string"},
		},
	}
	errRef := map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorEnvelope"}}}}
	withDesc := func(d string) map[string]any {
		m := map[string]any{"description": d}
		for k, v := range errRef {
			m[k] = v
		}
		return m
	}
	out := map[string]any{
		strconv.Itoa(rt.status): map[string]any{"description": "Success.", "content": map[string]any{"application/json": map[string]any{"schema": ok}}},
		"401":                   withDesc("UNAUTHORIZED: no key, an unknown key (\"invalid partner api key\") or a revoked one."),
		"422":                   withDesc("VALIDATION: the message names every bad field."),
		"429":                   withDesc("RATE_LIMITED: wait Retry-After seconds."),
		"500":                   withDesc("INTERNAL: nothing about the cause; quote the requestId."),
	}
	if rt.scope != "" {
		out["403"] = withDesc("FORBIDDEN: the key lacks the scope " + rt.scope + "; the message says how to get a key that has it.")
	}
	if strings.Contains(rt.path, "{") || rt.method != http.MethodGet {
		out["404"] = withDesc("NOT_FOUND: an id that is not in this studio; the message names where valid ids come from.")
	}
	if rt.method != http.MethodGet {
		out["409"] = withDesc("CONFLICT: the write would break a uniqueness rule or the current state, ; IDEMPOTENCY_IN_PROGRESS: a request with the same Idempotency-Key is still running, retry after Retry-After seconds under the same key.")
	}
	if rt.path == "/trainees" || rt.path == "/trainees/{id}" && rt.method == http.MethodPatch {
		out["402"] = withDesc("PLAN_LIMIT: the studio's tier allows no more active trainees.")
	}
	return out
}

func errorEnvelopeSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"ok", "error", "requestId"},
		Properties: map[string]*jsonschema.Schema{
			"ok": {Const: jsonschema.Ptr[any](false)},
			"error": {
				Type:     "object",
				Required: []string{"code", "message"},
				Properties: map[string]*jsonschema.Schema{
					"code":    {Type: "string", Enum: []any{CodeUnauthorized, CodeNotFound, CodeConflict, CodeValidation, CodePlanLimit, CodeRateLimited, CodeInternal, CodeBadRequest, CodeMethodNotAllowed}},
					"message": {Type: "string", Description: "A sentence for the caller (or a model) to act on."},
					"fields": {Type: "array", Description: "On VALIDATION: every bad field and its sentence.", Items: &jsonschema.Schema{
						Type:       "object",
						Properties: map[string]*jsonschema.Schema{"field": {Type: "string"}, "message": {Type: "string"}},
					}},
				},
			},
			"requestId": {Type: "string"},
		},
	}
}

func (l *Lane) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	infoFrom(r.Context()).route = "GET " + Prefix + "/openapi.json"
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET")
		l.writeError(w, r, &Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Message: r.Method + " is not allowed on " + r.URL.Path + "; use GET."})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(l.openAPI())
}
