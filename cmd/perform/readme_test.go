package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/otherwise/perform/internal/mcpserver/toolset"
	"github.com/otherwise/perform/internal/tools"
)

// The documentation: the README, the front door, and the pages under docs/
// it links to. Paths are relative to the repository's root.
const repoRoot = "../.."

// docFiles lists README.md and every docs/*.md, relative to the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	sort.Strings(files[1:])
	return files
}

// readDoc reads one documentation file, named relative to the root.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// allDocs is the text of the README and every docs page, each after its
// name, so a figure is checked wherever it moved.
func allDocs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range docFiles(t) {
		fmt.Fprintf(&b, "\n<!-- %s -->\n%s", f, readDoc(t, f))
	}
	return b.String()
}

// TestReadmeCountsTheTools: every count of tools the README and the docs
// give is the count of the tool set it names, so adding a tool without
// updating the documentation fails here.
func TestReadmeCountsTheTools(t *testing.T) {
	docs := allDocs(t)
	reads := 0
	for _, tl := range tools.All() {
		if tl.ReadOnly {
			reads++
		}
	}
	all, trainee := len(tools.All()), len(tools.Trainee())

	var checked int
	for _, m := range regexp.MustCompile(`(\d+) tools: (\d+) reads and (\d+) writes`).FindAllStringSubmatch(docs, -1) {
		checked++
		if atoi(m[1]) != all || atoi(m[2]) != reads || atoi(m[3]) != all-reads {
			t.Errorf("the docs say %q; the coach tools are %d: %d reads and %d writes", m[0], all, reads, all-reads)
		}
	}
	for _, m := range regexp.MustCompile(`(\d+) coach tools`).FindAllStringSubmatch(docs, -1) {
		checked++
		if atoi(m[1]) != all {
			t.Errorf("the docs say %q; there are %d", m[0], all)
		}
	}
	for _, m := range regexp.MustCompile(`(\d+) trainee tools`).FindAllStringSubmatch(docs, -1) {
		checked++
		if atoi(m[1]) != trainee {
			t.Errorf("the docs say %q; there are %d", m[0], trainee)
		}
	}
	for _, m := range regexp.MustCompile(`(\d+) tool definitions`).FindAllStringSubmatch(docs, -1) {
		t.Errorf("the docs say %q: name the set (coach or trainee tools) a count is of", m[0])
	}
	if checked < 3 {
		t.Errorf("found only %d tool counts in the README and docs/; the patterns no longer match their wording", checked)
	}
}

// TestReadmeStaysTheFrontDoor: the README is short, links every docs page,
// and keeps the everyday test command .ci/run relies on.
func TestReadmeStaysTheFrontDoor(t *testing.T) {
	readme := readDoc(t, "README.md")
	if n := strings.Count(readme, "\n"); n >= 250 {
		t.Errorf("the README is %d lines; keep it under 250 and move detail to a page under docs/", n)
	}
	if !strings.Contains(readme, "\ngo test ./...    ") {
		t.Errorf("the README's set-up commands no longer hold the everyday `go test ./...` that .ci/run names")
	}
	for _, f := range docFiles(t)[1:] {
		if !strings.Contains(readme, "]("+f+")") {
			t.Errorf("the README does not link %s; add it to \"Where to read on\"", f)
		}
		if page := readDoc(t, f); !strings.Contains(firstParagraph(page), "](../README.md") {
			t.Errorf("%s does not start with a sentence saying who it is for and a link back to the README", f)
		}
	}
}

// firstParagraph is the text after a page's title, up to the next blank line.
func firstParagraph(page string) string {
	_, rest, _ := strings.Cut(page, "\n\n")
	p, _, _ := strings.Cut(rest, "\n\n")
	return p
}

var (
	fence      = regexp.MustCompile("(?ms)^```.*?^```[^\n]*$")
	codeSpan   = regexp.MustCompile("`[^`\n]*`")
	link       = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	heading    = regexp.MustCompile(`(?m)^(#{1,6}) +(.+?) *#*$`)
	htmlAnchor = regexp.MustCompile(`<a (?:name|id)="([^"]+)"`)
)

// TestReadmeLinksResolve: every relative link of the README and of the docs
// pages names a file that exists and, when it names an anchor in a Markdown
// file, a heading of that file.
func TestReadmeLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{} // file → anchors, filled on demand
	anchorsOf := func(name string) map[string]bool {
		if a, ok := anchors[name]; ok {
			return a
		}
		a := headingAnchors(readDoc(t, name))
		anchors[name] = a
		return a
	}
	var checked int
	for _, f := range docFiles(t) {
		text := fence.ReplaceAllString(readDoc(t, f), "")
		text = codeSpan.ReplaceAllString(text, "code")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			name := f
			if file != "" {
				name = path.Clean(path.Join(path.Dir(f), file))
			}
			if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(name))); err != nil {
				t.Errorf("%s links %s: %s does not exist", f, target, name)
				continue
			}
			if anchor != "" && strings.HasSuffix(name, ".md") && !anchorsOf(name)[anchor] {
				t.Errorf("%s links %s: %s has no heading with the anchor #%s", f, target, name, anchor)
			}
		}
	}
	if checked < 20 {
		t.Errorf("found only %d relative links in the README and docs/; the link pattern no longer matches", checked)
	}
}

// headingAnchors are the anchors a Markdown file's headings get, as the
// repository's host makes them: lower case, punctuation dropped, spaces as
// hyphens, a repeated heading numbered -1, -2, ….
func headingAnchors(doc string) map[string]bool {
	doc = fence.ReplaceAllString(doc, "")
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(doc, -1) {
		s := slug(m[2])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(doc, -1) {
		out[m[1]] = true
	}
	return out
}

func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestReadmeSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Connect with OAuth (claude.ai, ChatGPT, Claude Code)": "connect-with-oauth-claudeai-chatgpt-claude-code",
		"Proposed writes and the coach's yes":                  "proposed-writes-and-the-coachs-yes",
		"`perform-mcp` (stdio)":                                "perform-mcp-stdio",
		"Hosted endpoint: URL and key":                         "hosted-endpoint-url-and-key",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestReadmeShowsTheHints: the hints column of the tables (docs/mcp.md) of the
// coach tools (one row a tool) and the trainee tools (one row a scope) is
// what the server lists for each tool (toolset.Annotations), so a hint
// changed in a definition fails here until the table says it too.
func TestReadmeShowsTheHints(t *testing.T) {
	b, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)

	coach := tableRows(t, readme, "## The tools")
	seen := map[string]bool{}
	for _, cells := range coach {
		name := strings.Trim(cells[0], "`")
		tl, ok := tools.ByName(name)
		if !ok {
			t.Errorf("README's coach table has a row for %s, which is no coach tool", name)
			continue
		}
		seen[name] = true
		if want := hintCell([]tools.Tool{tl}); cells[len(cells)-1] != want {
			t.Errorf("README's coach table gives %s the hints %q; the server lists %q", name, cells[len(cells)-1], want)
		}
	}
	for _, tl := range tools.All() {
		if !seen[tl.Name] {
			t.Errorf("README's coach table has no row for %s", tl.Name)
		}
	}

	seen = map[string]bool{}
	parenthesis := regexp.MustCompile(`\([^)]*\)`)
	names := regexp.MustCompile("`([a-z_]+)`")
	for _, cells := range tableRows(t, readme, "## The trainee tools") {
		var row []tools.Tool
		for _, m := range names.FindAllStringSubmatch(parenthesis.ReplaceAllString(cells[1], ""), -1) {
			tl, ok := tools.TraineeByName(m[1])
			if !ok {
				t.Errorf("README's trainee table names %s, which is no trainee tool", m[1])
				continue
			}
			seen[tl.Name] = true
			row = append(row, tl)
		}
		if want := hintCell(row); cells[len(cells)-1] != want {
			t.Errorf("README's trainee table gives %s the hints %q; the server lists %q", cells[0], cells[len(cells)-1], want)
		}
	}
	for _, tl := range tools.Trainee() {
		if !seen[tl.Name] {
			t.Errorf("README's trainee table names no %s", tl.Name)
		}
	}
}

// tableRows are the cells of the rows of the first table under heading
// whose first cell is code (a tool or a scope), trimmed.
func tableRows(t *testing.T, readme, heading string) [][]string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	var rows [][]string
	started := false
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		if !strings.HasPrefix(line, "| `") {
			continue // the header and its rule
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("README has no table of tools under %q", heading)
	}
	return rows
}

// hints says a tool's annotations in the README's words: read, write or
// destructive; idempotent for a write that is (every read is); open world
// for a tool that reaches outside the studio.
func hints(tl tools.Tool) string {
	a := toolset.Annotations(tl)
	words := []string{"write"}
	switch {
	case a.ReadOnlyHint:
		words[0] = "read"
	case *a.DestructiveHint:
		words[0] = "destructive"
	}
	if a.IdempotentHint && !a.ReadOnlyHint {
		words = append(words, "idempotent")
	}
	if *a.OpenWorldHint {
		words = append(words, "open world")
	}
	return strings.Join(words, ", ")
}

// hintCell is a row's hints: those most of its tools share, then each
// other group's tools with theirs ("write; `get_body_analysis`: read").
func hintCell(row []tools.Tool) string {
	var order []string
	groups := map[string][]string{}
	for _, tl := range row {
		h := hints(tl)
		if groups[h] == nil {
			order = append(order, h)
		}
		groups[h] = append(groups[h], "`"+tl.Name+"`")
	}
	if len(order) == 0 {
		return ""
	}
	most := order[0]
	for _, h := range order {
		if len(groups[h]) > len(groups[most]) {
			most = h
		}
	}
	cell := []string{most}
	for _, h := range order {
		if h != most {
			cell = append(cell, strings.Join(groups[h], ", ")+": "+h)
		}
	}
	return strings.Join(cell, "; ")
}
