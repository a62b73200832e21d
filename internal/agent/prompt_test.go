package agent

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// Every tool the prompt tells the model to use is one it is given, and
// the prompt says what the training memory lets it read.
func TestPromptNamesOnlyToolsTheAssistantHas(t *testing.T) {
	prompt := systemPrompt(store.CoachRef{Coach: domain.Coach{Name: "דנה"}, StudioName: "Studio"}, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	have := map[string]bool{}
	for _, tl := range tools.AgentSubset() {
		have[tl.Name] = true
	}
	named := regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`).FindAllString(prompt, -1)
	if len(named) == 0 {
		t.Fatal("the prompt names no tool")
	}
	for _, name := range named {
		if !have[name] {
			t.Errorf("the prompt names %s, which is not in the assistant's tool set", name)
		}
	}
	for _, want := range []string{"get_trainee_overview", "needs_attention", "צ'ק-אינים", "פציעות", "יעדים"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt does not mention %q", want)
		}
	}
	if strings.Contains(prompt, "אינם זמינים") {
		t.Error("the prompt still says workout data is not available")
	}
}
