// Package secret seals the few secrets Perform must read back (the studio
// key the WhatsApp agent mints for itself) with AES-256-GCM under
// PERFORM_SECRET_KEY. Hashes, not this, are for secrets that are only compared.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of a key: 32 bytes selects AES-256.
const KeySize = 32

// version prefixes every sealed value so a later scheme can sit beside this one.
const version = "v1:"

// ErrOpen is returned for a sealed value that is malformed, was sealed under
// another key or was tampered with. The three are deliberately not told apart.
var ErrOpen = errors.New("the sealed value cannot be opened with this PERFORM_SECRET_KEY")

// Box seals and opens values under one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("PERFORM_SECRET_KEY must be %d bytes (64 hex characters or 44 base64 characters); got %d bytes", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext with a fresh random nonce; aad binds the value to
// its place (e.g. the studio id) so it cannot be copied to another row.
// The result is printable: "v1:" and base64url of nonce+ciphertext.
func (b *Box) Seal(plaintext, aad string) string {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic("secret: no randomness: " + err.Error()) // crypto/rand never fails on supported platforms
	}
	out := b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(aad))
	return version + base64.RawURLEncoding.EncodeToString(out)
}

// Open reverses Seal with the same aad.
func (b *Box) Open(sealed, aad string) (string, error) {
	rest, ok := strings.CutPrefix(sealed, version)
	if !ok {
		return "", ErrOpen
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) < b.aead.NonceSize()+b.aead.Overhead() {
		return "", ErrOpen
	}
	n := b.aead.NonceSize()
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], []byte(aad))
	if err != nil {
		return "", ErrOpen
	}
	return string(plain), nil
}

// ParseKey reads a key written as 64 hex characters or as standard or
// URL-safe base64 (padded or not) of 32 bytes.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if k, err := hex.DecodeString(s); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == KeySize {
			return k, nil
		}
	}
	return nil, fmt.Errorf("PERFORM_SECRET_KEY must be 32 bytes written as 64 hex characters or base64; the value given is neither")
}

// NewKey returns a fresh random key.
func NewKey() []byte {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		panic("secret: no randomness: " + err.Error())
	}
	return k
}

// LoadOrCreateKeyFile reads the key kept in path (hex), or creates the file
// with a fresh key (mode 0600) when it does not exist. It serves the SQLite
// default, where the key lives beside the database file. The file is written
// aside and hard-linked into place, so two processes starting at once agree
// on one key and neither ever reads a half-written file.
func LoadOrCreateKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		k, perr := ParseKey(string(b))
		if perr != nil {
			return nil, fmt.Errorf("the secret key file %s is damaged: %w", path, perr)
		}
		return k, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading the secret key file %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the directory for the secret key file %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".perform-secret-*")
	if err != nil {
		return nil, fmt.Errorf("creating the secret key file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	k := NewKey()
	_, err = tmp.WriteString(hex.EncodeToString(k) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("writing the secret key file %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return LoadOrCreateKeyFile(path) // another process won the race
		}
		return nil, fmt.Errorf("creating the secret key file %s: %w", path, err)
	}
	return k, nil
}
