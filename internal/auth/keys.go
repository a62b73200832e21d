package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// KeyPrefix starts every studio API key.
const KeyPrefix = "pf_live_"

// Prefixes of the OAuth server's opaque tokens, so an authenticator can
// tell a token from a key without asking the database.
const (
	AccessTokenPrefix  = "pf_at_"
	RefreshTokenPrefix = "pf_rt_"
)

// displayLen is how much of a key is kept in clear to tell keys apart.
const displayLen = 15

// NewKey returns a fresh studio API key: the prefix and 32 random bytes,
// unpadded base64url. The caller shows it once and keeps only Hash and Display.
func NewKey() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// Hash is what the store keeps of a key.
func Hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Display is the key's first 15 characters, kept to tell keys apart.
func Display(key string) string {
	if len(key) < displayLen {
		return key
	}
	return key[:displayLen]
}

// WellFormed reports whether s has the shape of a studio API key.
func WellFormed(s string) bool {
	return strings.HasPrefix(s, KeyPrefix) && len(s) >= len(KeyPrefix)+43
}

// HashEqual compares two key hashes in constant time.
func HashEqual(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
