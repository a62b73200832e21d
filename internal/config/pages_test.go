package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/webui"
)

// TestPagesSettings: the pages' default language (Hebrew unless set) and
// the studio's privacy and terms files, read at start; a file that cannot
// be read or is not plain text stops the start naming the variable.
func TestPagesSettings(t *testing.T) {
	c, err := FromEnv(env(nil))
	if err != nil || c.DefaultLanguage != webui.Hebrew || c.PrivacyText != "" || c.TermsText != "" {
		t.Fatalf("defaults: %q %q %q %v", c.DefaultLanguage, c.PrivacyText, c.TermsText, err)
	}
	dir := t.TempDir()
	privacy, terms, binary := filepath.Join(dir, "privacy.txt"), filepath.Join(dir, "terms.txt"), filepath.Join(dir, "logo.png")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(privacy, []byte("# פרטיות\nמה שהסטודיו שומר."), 0o644))
	must(os.WriteFile(terms, []byte("Our terms."), 0o644))
	must(os.WriteFile(binary, []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644))
	c, err = FromEnv(env(map[string]string{"PERFORM_DEFAULT_LANGUAGE": "EN", "PERFORM_PRIVACY_FILE": privacy, "PERFORM_TERMS_FILE": terms}))
	if err != nil || c.DefaultLanguage != webui.English || !strings.Contains(c.PrivacyText, "מה שהסטודיו שומר") || c.TermsText != "Our terms." {
		t.Fatalf("set: %q %q %q %v", c.DefaultLanguage, c.PrivacyText, c.TermsText, err)
	}
	for _, tc := range []struct{ name, value, want string }{
		{"PERFORM_DEFAULT_LANGUAGE", "fr", `PERFORM_DEFAULT_LANGUAGE must be he or en; got "fr".`},
		{"PERFORM_PRIVACY_FILE", filepath.Join(dir, "missing.txt"), "PERFORM_PRIVACY_FILE names a file that cannot be read: open " + filepath.Join(dir, "missing.txt") + ": no such file or directory."},
		{"PERFORM_TERMS_FILE", binary, "PERFORM_TERMS_FILE must name a plain-text file"},
		{"PERFORM_TERMS_FILE", dir, "PERFORM_TERMS_FILE names a file that cannot be read"},
	} {
		_, err := FromEnv(env(map[string]string{tc.name: tc.value}))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s=%q: %v, want %s", tc.name, tc.value, err, tc.want)
		}
	}
}
