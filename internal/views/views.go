// Package views holds Perform's MCP Apps views (the extension
// io.modelcontextprotocol/ui): each one self-contained HTML document,
// embedded in the binary, that an MCP client which renders views shows
// beside a tool's answer and fills with the answer's structuredContent.
//
// A lane route names its view (lane.View) with one of the addresses
// below; every tool that calls the route, the coach's and the trainee's,
// carries it in its _meta, and the MCP server lists and serves the view as
// a resource. A view holds no data and fetches nothing: no external URL,
// no network, every value a person typed drawn as text.
package views

import (
	"embed"
	"html"
	"sort"
	"strings"
)

// Extension is the MCP Apps extension's identifier, under which a server
// and a client declare it in their capabilities.
const Extension = "io.modelcontextprotocol/ui"

// MIMEType is a view's MIME type.
const MIMEType = "text/html;profile=mcp-app"

// The views' addresses.
const (
	BodyTrend     = "ui://perform/body"
	Benchmarks    = "ui://perform/benchmarks"
	WeekAdherence = "ui://perform/week"
	Triage        = "ui://perform/triage"
)

// View is one view: its address, name, title and description as
// resources/list shows them, and its HTML document.
type View struct {
	URI, Name, Title, Description string
	HTML                          string
	// script is the view's own script, html/SCRIPT.js.
	script string
}

//go:embed html/*.js html/*.css
var files embed.FS

var all = []View{
	{URI: BodyTrend, Name: "body_trend", script: "body", Title: "Weight and body trend",
		Description: "Weight and body measurements over the range, a line per metric (get_body_analysis)."},
	{URI: Benchmarks, Name: "benchmarks", script: "benchmarks", Title: "Benchmark progress",
		Description: "Each benchmark's recent values with its personal records marked (get_trainee_benchmarks, get_benchmarks)."},
	{URI: WeekAdherence, Name: "week", script: "week", Title: "The week: planned against done",
		Description: "A week's sessions by day, planned against done, with the week's figures (get_weekly_debrief)."},
	{URI: Triage, Name: "triage", script: "triage", Title: "Who needs attention",
		Description: "The roster's triage as a ranked list with each trainee's reasons (needs_attention)."},
}

func init() {
	for i := range all {
		all[i].HTML = document(all[i].Title, all[i].script)
	}
}

// csp is each view's own policy, whatever the host's: no network, no
// frames, no plugins; only the document's inline script and styles run.
const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"

// document is a view's one self-contained HTML page: the shared style
// sheet and script (app.css, app.js: the handshake with the host, theme,
// locale, text-only building) and the view's own script (NAME.js, by the
// view's own).
func document(title, script string) string {
	return "<!doctype html>\n<html lang=\"en\" dir=\"ltr\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta http-equiv=\"Content-Security-Policy\" content=\"" + csp + "\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" +
		"<title>" + html.EscapeString(title) + "</title>\n<style>\n" + file("app.css") + "</style>\n</head>\n<body>\n" +
		"<main id=\"app\" aria-live=\"polite\"></main>\n<script>\n" + file("app.js") + file(script+".js") + "</script>\n</body>\n</html>\n"
}

func file(name string) string {
	b, err := files.ReadFile("html/" + name)
	if err != nil {
		panic("views: " + err.Error())
	}
	if strings.Contains(strings.ToLower(string(b)), "</script") {
		panic("views: " + name + " closes a script element")
	}
	return string(b)
}

// All lists the views, sorted by address.
func All() []View {
	out := append([]View(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// ByURI finds a view by its address.
func ByURI(uri string) (View, bool) {
	for _, v := range all {
		if v.URI == uri {
			return v, true
		}
	}
	return View{}, false
}
