package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func newBox(t testing.TB) *Box {
	t.Helper()
	b, err := New(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSealOpenRoundTrip(t *testing.T) {
	b := newBox(t)
	for _, plain := range []string{"", "pf_live_abc", strings.Repeat("שלום", 100)} {
		sealed := b.Seal(plain, "std_1")
		if strings.Contains(sealed, plain) && plain != "" {
			t.Fatalf("sealed value %q shows the plaintext", sealed)
		}
		got, err := b.Open(sealed, "std_1")
		if err != nil || got != plain {
			t.Fatalf("Open = %q, %v; want %q", got, err, plain)
		}
	}
}

func TestSealUsesFreshNonces(t *testing.T) {
	b := newBox(t)
	first, second := b.Seal("same", "a"), b.Seal("same", "a")
	if first == second {
		t.Fatal("two seals of one value are equal: the nonce is reused")
	}
}

func TestOpenRefusesWrongKeyAADAndTampering(t *testing.T) {
	b := newBox(t)
	sealed := b.Seal("pf_live_secret", "std_1")
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.Open(sealed, "std_1"); !errors.Is(err, ErrOpen) {
		t.Fatalf("other key: err = %v", err)
	}
	if _, err := b.Open(sealed, "std_2"); !errors.Is(err, ErrOpen) {
		t.Fatalf("other aad: err = %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(sealed, version))
	raw[len(raw)-1] ^= 1
	if _, err := b.Open(version+base64.RawURLEncoding.EncodeToString(raw), "std_1"); !errors.Is(err, ErrOpen) {
		t.Fatalf("tampered: err = %v", err)
	}
	for _, bad := range []string{"", "v1:", "v2:abc", "v1:!!!", "v1:" + base64.RawURLEncoding.EncodeToString([]byte("short"))} {
		if _, err := b.Open(bad, "std_1"); !errors.Is(err, ErrOpen) {
			t.Fatalf("Open(%q) err = %v", bad, err)
		}
	}
}

func TestNewRejectsWrongKeyLength(t *testing.T) {
	if _, err := New(make([]byte, 16)); err == nil || !strings.Contains(err.Error(), "PERFORM_SECRET_KEY") {
		t.Fatalf("err = %v; want a sentence naming PERFORM_SECRET_KEY", err)
	}
}

func TestParseKey(t *testing.T) {
	k := NewKey()
	for _, s := range []string{hex.EncodeToString(k), base64.StdEncoding.EncodeToString(k), base64.RawURLEncoding.EncodeToString(k), " " + hex.EncodeToString(k) + "\n"} {
		got, err := ParseKey(s)
		if err != nil || !bytes.Equal(got, k) {
			t.Fatalf("ParseKey(%q) = %x, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "abc", hex.EncodeToString(k[:16]), strings.Repeat("z", 64)} {
		if _, err := ParseKey(s); err == nil {
			t.Fatalf("ParseKey(%q) accepted a bad key", s)
		}
	}
}

func TestLoadOrCreateKeyFileAgreesUnderRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "perform.secret")
	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i], errs[i] = LoadOrCreateKeyFile(path)
		}()
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(keys[i], keys[0]) {
			t.Fatal("two callers got different keys")
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v; want 0600", st.Mode().Perm())
	}
	again, err := LoadOrCreateKeyFile(path)
	if err != nil || !bytes.Equal(again, keys[0]) {
		t.Fatalf("reload = %x, %v", again, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left %d files beside the key; want only the key", len(entries))
	}
	if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateKeyFile(path); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged file: err = %v", err)
	}
}

func FuzzOpen(f *testing.F) {
	b := newBox(f)
	f.Add(b.Seal("pf_live_x", "std_1"), "std_1")
	f.Add("v1:", "")
	f.Add("v1:AAAA", "x")
	f.Add("garbage", "std_1")
	f.Fuzz(func(t *testing.T, sealed, aad string) {
		plain, err := b.Open(sealed, aad)
		if err != nil {
			if !errors.Is(err, ErrOpen) {
				t.Fatalf("unexpected error type %v", err)
			}
			return
		}
		// Anything that opens must round-trip.
		if got, err := b.Open(b.Seal(plain, aad), aad); err != nil || got != plain {
			t.Fatalf("round trip of %q failed", plain)
		}
	})
}

func FuzzParseKey(f *testing.F) {
	f.Add(hex.EncodeToString(make([]byte, 32)))
	f.Add(base64.StdEncoding.EncodeToString(make([]byte, 32)))
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err == nil && len(k) != KeySize {
			t.Fatalf("ParseKey accepted %d bytes", len(k))
		}
	})
}
