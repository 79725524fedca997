package apikey

import (
	"crypto/sha256"
	"crypto/subtle"
)

// MaxTokenBytes bounds a key given in a request; longer ones are refused
// without hashing.
const MaxTokenBytes = 128

// Snapshot is an immutable set of keys, checked without locks or database
// calls. Keys are found by the SHA-256 of the token, so the lookup reveals
// nothing about stored tokens through its timing, and the token found is
// compared in constant time.
type Snapshot struct {
	byHash map[[32]byte]*checker
}

// NewSnapshot compiles keys into a snapshot.
func NewSnapshot(keys []*Key) *Snapshot {
	s := &Snapshot{byHash: make(map[[32]byte]*checker, len(keys))}
	for _, k := range keys {
		s.byHash[sha256.Sum256([]byte(k.Token))] = compile(k)
	}
	return s
}

// Len is the number of keys.
func (s *Snapshot) Len() int { return len(s.byHash) }

// Check finds the key token and applies its restrictions to a request's
// Origin, Referer and User-Agent headers. It returns the key, or one of
// ErrMissing, ErrUnknown, ErrOrigin and ErrUserAgent.
func (s *Snapshot) Check(token, origin, referer, userAgent string) (*Key, error) {
	if token == "" {
		return nil, ErrMissing
	}
	if len(token) > MaxTokenBytes {
		return nil, ErrUnknown
	}
	c, ok := s.byHash[sha256.Sum256([]byte(token))]
	if !ok || subtle.ConstantTimeCompare([]byte(c.key.Token), []byte(token)) != 1 {
		return nil, ErrUnknown
	}
	if err := c.allows(origin, referer, userAgent); err != nil {
		return c.key, err
	}
	return c.key, nil
}
