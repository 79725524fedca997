// Package svctoken manages the service tokens of the account service API
// (spec 001 part B): secrets of 32 random bytes handed out once, kept only
// as their SHA-256 hashes, checked by looking the hash up, and revoked.
package svctoken

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/store"
)

// Prefix starts every token, so that a leaked one is easy to recognise
// (secret scanners) and tell from an API key.
const Prefix = "tst_"

// MaxNameBytes bounds a token's name.
const MaxNameBytes = 200

// ErrNotFound is returned for an unknown or revoked token id.
var ErrNotFound = errors.New("no such service token")

// ErrInvalid is returned for a bad name.
var ErrInvalid = errors.New("invalid service token")

// Token is a token's record as shown to the admin: never its secret.
type Token struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Created string `json:"created"`
}

// Service creates, checks and revokes tokens in the state database.
type Service struct{ db *store.DB }

// New returns the service over db.
func New(db *store.DB) *Service { return &Service{db: db} }

// Hash is the stored form of a secret: hex SHA-256.
func Hash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// Create makes a token named name and returns its record and its secret,
// which is never shown again.
func (s *Service) Create(ctx context.Context, name string) (Token, string, error) {
	name = strings.TrimSpace(name)
	if !utf8.ValidString(name) || len(name) > MaxNameBytes {
		return Token{}, "", fmt.Errorf("%w: the name must be valid UTF-8 of at most %d bytes", ErrInvalid, MaxNameBytes)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Token{}, "", fmt.Errorf("generate service token: %w", err)
	}
	secret := Prefix + base64.RawURLEncoding.EncodeToString(b[:])
	id := uuid.NewString()
	if name == "" {
		name = "token-" + id[:8]
	}
	rec, err := s.db.CreateServiceToken(ctx, store.ServiceToken{ID: id, Name: name, Hash: Hash(secret)})
	if err != nil {
		return Token{}, "", err
	}
	return record(rec), secret, nil
}

// List returns the valid tokens, oldest first.
func (s *Service) List(ctx context.Context) ([]Token, error) {
	recs, err := s.db.ServiceTokens(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Token, 0, len(recs))
	for _, r := range recs {
		out = append(out, record(r))
	}
	return out, nil
}

// Revoke revokes the token with the id: it stops working at once.
func (s *Service) Revoke(ctx context.Context, id string) error {
	err := s.db.RevokeServiceToken(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return err
}

// Check returns the id of the valid token whose secret is given. The
// secret is looked up by its hash, so its comparison leaks nothing about
// it; ok is false for an unknown or revoked secret.
func (s *Service) Check(ctx context.Context, secret string) (id string, ok bool, err error) {
	if !strings.HasPrefix(secret, Prefix) || len(secret) > 128 {
		return "", false, nil
	}
	rec, err := s.db.ServiceTokenByHash(ctx, Hash(secret))
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return rec.ID, true, nil
}

func record(r store.ServiceToken) Token {
	return Token{ID: r.ID, Name: r.Name, Created: r.Created}
}
