package agent

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/training"
)

// Who owes is in the morning digest: billing's reasons have their words
// and a message to forward, like the triage's own.
func TestDigestNamesWhoOwes(t *testing.T) {
	page := answers.Triage{Total: 2, Items: []training.Attention{
		{FirstName: "Daniel", LastName: "Levi", Reasons: []training.Reason{{Code: "owes"}}},
		{FirstName: "נועה", LastName: "כהן", Reasons: []training.Reason{{Code: "package_ends"}, {Code: "no_credits"}}},
	}}
	msgs := digestMessages("Dana Levi", page, nil)
	if len(msgs) != 3 || !strings.Contains(msgs[0], "*Daniel Levi* – יש חוב שמועד תשלומו עבר") ||
		!strings.Contains(msgs[0], "החבילה מסתיימת בקרוב, לא נשארו אימונים בחבילה") {
		t.Fatalf("digest: %q", msgs)
	}
	if !strings.Contains(msgs[1], "היי Daniel") || !strings.Contains(msgs[1], "תשלום פתוח") || !strings.Contains(msgs[2], "החבילה שלך מסתיימת") {
		t.Fatalf("drafts: %q", msgs[1:])
	}
}
