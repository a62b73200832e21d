package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/mcpserver/toolset"
	"github.com/otherwise/perform/internal/tools"
)

// TestReadmeCountsTheTools: every count of tools the README gives is the
// count of the tool set it names, so adding a tool without updating the
// README fails here.
func TestReadmeCountsTheTools(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	reads := 0
	for _, tl := range tools.All() {
		if tl.ReadOnly {
			reads++
		}
	}
	all, trainee := len(tools.All()), len(tools.Trainee())

	var checked int
	for _, m := range regexp.MustCompile(`(\d+) tools: (\d+) reads and (\d+) writes`).FindAllStringSubmatch(readme, -1) {
		checked++
		if atoi(m[1]) != all || atoi(m[2]) != reads || atoi(m[3]) != all-reads {
			t.Errorf("README says %q; the coach tools are %d: %d reads and %d writes", m[0], all, reads, all-reads)
		}
	}
	for _, m := range regexp.MustCompile(`(\d+) coach tools`).FindAllStringSubmatch(readme, -1) {
		checked++
		if atoi(m[1]) != all {
			t.Errorf("README says %q; there are %d", m[0], all)
		}
	}
	for _, m := range regexp.MustCompile(`(\d+) trainee tools`).FindAllStringSubmatch(readme, -1) {
		checked++
		if atoi(m[1]) != trainee {
			t.Errorf("README says %q; there are %d", m[0], trainee)
		}
	}
	for _, m := range regexp.MustCompile(`(\d+) tool definitions`).FindAllStringSubmatch(readme, -1) {
		t.Errorf("README says %q: name the set (coach or trainee tools) a count is of", m[0])
	}
	if checked < 3 {
		t.Errorf("found only %d tool counts in the README; the patterns no longer match its wording", checked)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestReadmeShowsTheHints: the hints column of the README's tables of the
// coach tools (one row a tool) and the trainee tools (one row a scope) is
// what the server lists for each tool (toolset.Annotations), so a hint
// changed in a definition fails here until the table says it too.
func TestReadmeShowsTheHints(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)

	coach := tableRows(t, readme, "### The tools")
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
	for _, cells := range tableRows(t, readme, "### The trainee tools") {
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
