package ids

import (
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/text"
)

// NotFound is the one sentence for an id that names nothing the caller may
// see: of the wrong kind, malformed, or not in the studio. It says where
// valid ids come from. The lane and the tools (which refuse an id of the
// wrong kind before any request) both answer it.
func NotFound(want Kind, id string) string {
	shown := text.Truncate(text.Printable(id), 80) // the id may hold any bytes: shown escaped
	if got, known := KindOf(id); known && got != want {
		return fmt.Sprintf("%s is %s %s id; this needs %s %s id (from %s).", shown, article(got.Noun()), got.Noun(), article(want.Noun()), want.Noun(), want.Source())
	}
	return fmt.Sprintf("No %s with id %s exists in this studio. Use %s to get a valid id.", want.Noun(), shown, want.Source())
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return "an"
	}
	return "a"
}
