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

	"github.com/otherwise/perform/internal/tools"
)

// The documentation: the README, the front door, and the pages under docs/
// it links to. Paths are relative to the repository's root.
const repoRoot = "../.."

// pendingPages are pages the README and the docs link to that other
// branches are adding; while one is missing its links are not a failure.
// Once it exists its links and anchors are checked like any other's, and
// its entry here should go.
var pendingPages = map[string]bool{
	"docs/listing.md": true,
	"docs/pages.md":   true,
}

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
				if pendingPages[name] {
					t.Logf("%s links %s, which another branch adds", f, target)
					continue
				}
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
