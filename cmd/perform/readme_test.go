package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"

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
