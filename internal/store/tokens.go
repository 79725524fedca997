package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tesseramaps/tessera/internal/changefeed"
)

// ServiceToken is the record of a service token of the account API. The
// token itself is never stored: only its SHA-256 hash (hex).
type ServiceToken struct {
	ID      string
	Name    string
	Hash    string
	Created string
	Revoked string // "" while the token is valid
}

const tokenCols = `id, name, hash, created, revoked`

func scanToken(sc interface{ Scan(...any) error }) (ServiceToken, error) {
	var t ServiceToken
	var revoked sql.NullString
	err := sc.Scan(&t.ID, &t.Name, &t.Hash, &t.Created, &revoked)
	t.Revoked = revoked.String
	return t, err
}

// CreateServiceToken stores a new token record (its Created is set here).
func (s *DB) CreateServiceToken(ctx context.Context, t ServiceToken) (ServiceToken, error) {
	t.Created, t.Revoked = now(), ""
	_, err := s.exec(ctx, `INSERT INTO service_tokens (id, name, hash, created) VALUES (?, ?, ?, ?)`, t.ID, t.Name, t.Hash, t.Created)
	if isUnique(err) {
		return ServiceToken{}, fmt.Errorf("service token %s: %w", t.ID, ErrConflict)
	}
	if err != nil {
		return ServiceToken{}, fmt.Errorf("create service token: %w", err)
	}
	s.announce(ctx, changefeed.Token, t.ID)
	return t, nil
}

// ServiceTokens lists the tokens that are not revoked, oldest first.
func (s *DB) ServiceTokens(ctx context.Context) ([]ServiceToken, error) {
	rows, err := s.query(ctx, `SELECT `+tokenCols+` FROM service_tokens WHERE revoked IS NULL ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("list service tokens: %w", err)
	}
	defer rows.Close()
	out := []ServiceToken{}
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list service tokens: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list service tokens: %w", err)
	}
	return out, nil
}

// ServiceTokenByHash returns the valid (not revoked) token with the hash,
// or ErrNotFound.
func (s *DB) ServiceTokenByHash(ctx context.Context, hash string) (ServiceToken, error) {
	t, err := scanToken(s.queryRow(ctx, `SELECT `+tokenCols+` FROM service_tokens WHERE hash = ? AND revoked IS NULL`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return ServiceToken{}, fmt.Errorf("service token: %w", ErrNotFound)
	}
	if err != nil {
		return ServiceToken{}, fmt.Errorf("read service token: %w", err)
	}
	return t, nil
}

// RevokeServiceToken revokes a token; ErrNotFound when no valid token has
// the id. The record stays (usage counts name it).
func (s *DB) RevokeServiceToken(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `UPDATE service_tokens SET revoked = ? WHERE id = ? AND revoked IS NULL`, now(), id)
	if err != nil {
		return fmt.Errorf("revoke service token %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("service token %s: %w", id, ErrNotFound)
	}
	s.announce(ctx, changefeed.Token, id)
	return nil
}
