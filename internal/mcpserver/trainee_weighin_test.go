package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
)

// The trainee logs her own weight with log_weight (health:write), and a
// measurement without any figure is refused naming that tool, never a
// route she cannot call.
func TestATraineeLogsHerWeight(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	cs := w.connect(t, w.token)
	res := mcptest.Call(t, cs, "log_weight", map[string]any{"weightKg": 71.5})
	if res.IsError || !strings.Contains(mcptest.Text(res), `"weightKg":71.5`) {
		t.Fatalf("log_weight: %s", mcptest.Text(res))
	}
	if strings.Contains(mcptest.Text(res), "traineeId") || strings.Contains(mcptest.Text(res), "createdAt") {
		t.Fatalf("log_weight answers fields the trainee is not shown: %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "get_body_analysis", map[string]any{})
	if res.IsError || !strings.Contains(mcptest.Text(res), "71.5") {
		t.Fatalf("get_body_analysis after the weigh-in: %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "log_measurement", map[string]any{})
	if said := mcptest.Text(res); !res.IsError || !strings.Contains(said, "log_weight") || strings.Contains(said, "POST /trainees") {
		t.Fatalf("log_measurement {}: %s", said)
	}
	// A read-only health grant does not list it.
	ro := w.connect(t, w.f.TraineeToken(t, w.f.A, w.f.A.TraineeID, "health:read"))
	if slices.Contains(toolNames(t, ro), "log_weight") {
		t.Fatal("a health:read grant lists log_weight")
	}
}
