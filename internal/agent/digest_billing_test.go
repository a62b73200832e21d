package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/answers"
	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
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

// Every reason the triage can hold has its words in the digest and a
// message to forward: the triage's own and every reason an area declares
// it adds (lane.Adds.Codes), so a new one cannot reach the coach unsaid.
func TestDigestSaysEveryDeclaredReason(t *testing.T) {
	codes := slices.Clone(training.Reasons)
	for _, d := range lane.Declarations(areas.All(areas.Options{})) {
		for _, c := range d.Adds.Codes {
			codes = append(codes, c.Code)
		}
	}
	if !slices.Contains(codes, "payment_failed") {
		t.Fatalf("declared reasons: %v", codes)
	}
	for _, code := range codes {
		if reasonLabels[code] == "" || reasonDrafts[code] == "" {
			t.Errorf("the digest has no words (%q) or no message to forward (%q) for the reason %s", reasonLabels[code], reasonDrafts[code], code)
		}
	}
}
