package oauth_test

import (
	"testing"

	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/webui"
)

// TestEveryScopeInWords: the pages show every scope the server knows in
// words, in each language, never as its code.
func TestEveryScopeInWords(t *testing.T) {
	for _, s := range oauth.Scopes {
		for _, l := range webui.Langs {
			if w := webui.ScopeWords(l, s); w == s || w == "" {
				t.Errorf("%s has no words in %s", s, l)
			}
		}
	}
}
