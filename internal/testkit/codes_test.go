package testkit

import (
	"log/slog"
	"slices"
	"testing"
)

// SentCodes reads the server's sign-in code lines as slog writes them,
// text and JSON, and nothing else of the log.
func TestSentCodes(t *testing.T) {
	for _, json := range []bool{false, true} {
		var b Buffer
		var h slog.Handler = slog.NewTextHandler(&b, nil)
		if json {
			h = slog.NewJSONHandler(&b, nil)
		}
		l := slog.New(h)
		l.Info("sign-in code (no WhatsApp gateway is configured, so it is written here)", "phone", "…1111", "code", "123456")
		l.Info("request", "status", 200, "code", "654321")
		l.Info("sign-in code (no WhatsApp gateway is configured, so it is written here)", "phone", "…2222", "code", "000042")
		want := []SentCode{{Last4: "1111", Code: "123456"}, {Last4: "2222", Code: "000042"}}
		if got := SentCodes(b.String()); !slices.Equal(got, want) {
			t.Errorf("json %v: SentCodes = %+v, want %+v in\n%s", json, got, want, b.String())
		}
	}
	if got := SentCodes("no codes here"); got != nil {
		t.Errorf("SentCodes of a log without codes = %+v", got)
	}
}

func TestCodeIn(t *testing.T) {
	for text, want := range map[string]string{
		"Perform sign-in code: 123456\nIt works for 10 minutes.":           "123456",
		"Perfox verification code: 004711\nGive it only to the assistant.": "004711",
		"call 0501234567 or 12345":                                         "",
		"":                                                                 "",
	} {
		if got := CodeIn(text); got != want {
			t.Errorf("CodeIn(%q) = %q, want %q", text, got, want)
		}
	}
}
