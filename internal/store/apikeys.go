package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tesseramaps/tessera/internal/changefeed"
)

// APIKey is the record of an API key of the public API. Token is the key
// itself: public by nature (it sits in web pages), shown by the account
// API.
type APIKey struct {
	ID          string
	Token       string
	Name        string
	Description *string
	UserAgent   *string
	Origins     []string
	Created     string
	Changed     string
	Seq         int64 // the order of the account API's list
}

const apiKeyCols = `id, token, name, description, user_agent, origins, created, changed, seq`

func scanAPIKey(sc interface{ Scan(...any) error }) (APIKey, error) {
	var k APIKey
	var desc, ua sql.NullString
	var origins string
	if err := sc.Scan(&k.ID, &k.Token, &k.Name, &desc, &ua, &origins, &k.Created, &k.Changed, &k.Seq); err != nil {
		return APIKey{}, err
	}
	if desc.Valid {
		k.Description = &desc.String
	}
	if ua.Valid {
		k.UserAgent = &ua.String
	}
	if err := json.Unmarshal([]byte(origins), &k.Origins); err != nil {
		return APIKey{}, fmt.Errorf("api key %s: origins: %w", k.ID, err)
	}
	if k.Origins == nil {
		k.Origins = []string{}
	}
	return k, nil
}

func originsJSON(o []string) string {
	if o == nil {
		o = []string{}
	}
	b, _ := json.Marshal(o) // a []string always encodes
	return string(b)
}

// CreateAPIKey stores a new key after every other in the list order (its
// Created, Changed and Seq are set here); ErrConflict when its id or token
// is taken.
func (s *DB) CreateAPIKey(ctx context.Context, k APIKey) (APIKey, error) {
	k.Created = now()
	k.Changed = k.Created
	if k.Origins == nil {
		k.Origins = []string{}
	}
	err := s.queryRow(ctx, `INSERT INTO api_keys (`+apiKeyCols+`)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(MAX(seq), 0) + 1 FROM api_keys RETURNING seq`,
		k.ID, k.Token, k.Name, k.Description, k.UserAgent, originsJSON(k.Origins), k.Created, k.Changed).Scan(&k.Seq)
	if isUnique(err) {
		return APIKey{}, fmt.Errorf("api key %s: %w", k.ID, ErrConflict)
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("create api key: %w", err)
	}
	s.announce(ctx, changefeed.APIKey, k.ID)
	return k, nil
}

// APIKey returns the key with the id, or ErrNotFound.
func (s *DB) APIKey(ctx context.Context, id string) (APIKey, error) {
	k, err := scanAPIKey(s.queryRow(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, fmt.Errorf("api key %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("read api key %s: %w", id, err)
	}
	return k, nil
}

// APIKeys returns every key in list order.
func (s *DB) APIKeys(ctx context.Context) ([]APIKey, error) {
	return s.apiKeys(ctx, `SELECT `+apiKeyCols+` FROM api_keys ORDER BY seq, id`)
}

// APIKeysAfter returns at most limit keys that come after (seq, id) in list
// order: the page after a cursor. (0, "") starts at the beginning.
func (s *DB) APIKeysAfter(ctx context.Context, seq int64, id string, limit int) ([]APIKey, error) {
	return s.apiKeys(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE seq > ? OR (seq = ? AND id > ?) ORDER BY seq, id LIMIT ?`, seq, seq, id, limit)
}

func (s *DB) apiKeys(ctx context.Context, q string, args ...any) ([]APIKey, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	defer rows.Close()
	out := []APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list api keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return out, nil
}

// CountAPIKeys returns the number of keys.
func (s *DB) CountAPIKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM api_keys`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count api keys: %w", err)
	}
	return n, nil
}

// UpdateAPIKey writes a key's settings (name, description, user agent,
// origins) and sets its Changed; ErrNotFound when it does not exist.
func (s *DB) UpdateAPIKey(ctx context.Context, k APIKey) (APIKey, error) {
	k.Changed = now()
	res, err := s.exec(ctx, `UPDATE api_keys SET name = ?, description = ?, user_agent = ?, origins = ?, changed = ? WHERE id = ?`,
		k.Name, k.Description, k.UserAgent, originsJSON(k.Origins), k.Changed, k.ID)
	if err != nil {
		return APIKey{}, fmt.Errorf("update api key %s: %w", k.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return APIKey{}, fmt.Errorf("api key %s: %w", k.ID, ErrNotFound)
	}
	s.announce(ctx, changefeed.APIKey, k.ID)
	return s.APIKey(ctx, k.ID)
}

// DeleteAPIKey removes a key; ErrNotFound when it does not exist.
func (s *DB) DeleteAPIKey(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM api_keys WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete api key %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("api key %s: %w", id, ErrNotFound)
	}
	s.announce(ctx, changefeed.APIKey, id)
	return nil
}

// APIKeysVersion is a fingerprint of the keys that changes whenever one is
// created, changed or deleted (their number, the last change, the last
// sequence number): nodes sharing a database poll it to know when to reload
// their keys.
func (s *DB) APIKeysVersion(ctx context.Context) (string, error) {
	var n, seq int64
	var changed string
	err := s.queryRow(ctx, `SELECT COUNT(*), COALESCE(MAX(changed), ''), COALESCE(MAX(seq), 0) FROM api_keys`).Scan(&n, &changed, &seq)
	if err != nil {
		return "", fmt.Errorf("api keys version: %w", err)
	}
	return fmt.Sprintf("%d/%s/%d", n, changed, seq), nil
}
