// Package store keeps Tessera's persistent state in a SQLite database
// (DATA_DIR/state.db): tileset records (names, titles, publication, remote
// archives), ingest sessions and server settings such as the generated admin
// token.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a unique name is already taken.
var ErrConflict = errors.New("already exists")

// DB is the state database. It is safe for concurrent use.
type DB struct {
	db *sql.DB
}

// Open opens (creating if needed) the state database at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	q := url.Values{}
	q.Set("mode", "rwc")
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(NORMAL)", "foreign_keys(ON)"} {
		q.Add("_pragma", p)
	}
	u := url.URL{Scheme: "file", Opaque: strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	// One writer at a time; SQLite serialises writes anyway and this avoids
	// SQLITE_BUSY under load.
	db.SetMaxOpenConns(1)
	s := &DB{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *DB) Close() error { return s.db.Close() }

var migrations = []string{
	`CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE tilesets (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		title TEXT NOT NULL DEFAULT '',
		source TEXT NOT NULL UNIQUE,
		storage TEXT NOT NULL,
		published INTEGER NOT NULL DEFAULT 1,
		created TEXT NOT NULL,
		changed TEXT NOT NULL
	)`,
	`CREATE TABLE ingests (
		id TEXT PRIMARY KEY,
		document_id TEXT NOT NULL,
		filename TEXT NOT NULL,
		size INTEGER NOT NULL,
		state TEXT NOT NULL,
		errors TEXT NOT NULL DEFAULT '',
		tileset_id TEXT NOT NULL DEFAULT '',
		created TEXT NOT NULL,
		changed TEXT NOT NULL
	)`,
	`CREATE TABLE maps (
		id TEXT PRIMARY KEY,
		published INTEGER NOT NULL DEFAULT 1,
		format TEXT NOT NULL DEFAULT 'png',
		quality INTEGER NOT NULL DEFAULT 90,
		created TEXT NOT NULL,
		changed TEXT NOT NULL
	)`,
}

func (s *DB) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("migrate: the database has schema version %d, newer than this program's %d", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, i+1); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
	}
	return nil
}

// Setting returns the value of a setting, or ErrNotFound.
func (s *DB) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read setting %s: %w", key, err)
	}
	return v, nil
}

// SetSetting stores a setting.
func (s *DB) SetSetting(ctx context.Context, key, value string) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("write setting %s: %w", key, err)
	}
	return nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func isUnique(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
