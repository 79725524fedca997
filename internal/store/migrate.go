package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations are the schema's steps, applied in order, one statement each,
// to SQLite and PostgreSQL alike: append, never edit a step that has
// shipped (except for types both databases read the same way).
var migrations = []string{
	// 1-4: the self-hosted server.
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
		size BIGINT NOT NULL,
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

	// 5-: the hosted platform (spec 001 B, 002).
	// The account's fields of a tileset, and a sequence number giving the
	// account API's lists a stable order (cursor pages).
	`ALTER TABLE tilesets ADD COLUMN description TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE tilesets ADD COLUMN attribution TEXT`,
	`ALTER TABLE tilesets ADD COLUMN seq BIGINT NOT NULL DEFAULT 0`,
	// Ids of tilesets removed through the account API: they answer 410.
	`CREATE TABLE removed_tilesets (id TEXT PRIMARY KEY, removed TEXT NOT NULL)`,
	// Service tokens of the account API, kept as SHA-256 hashes.
	`CREATE TABLE service_tokens (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL,
		hash TEXT NOT NULL UNIQUE,
		created TEXT NOT NULL,
		revoked TEXT
	)`,
	// API keys of the public API. The token is the key itself: it is public
	// by nature (it sits in web pages) and the account API shows it.
	`CREATE TABLE api_keys (
		id TEXT PRIMARY KEY,
		token TEXT NOT NULL UNIQUE,
		name TEXT NOT NULL,
		description TEXT,
		user_agent TEXT,
		origins TEXT NOT NULL DEFAULT '[]',
		created TEXT NOT NULL,
		changed TEXT NOT NULL,
		seq BIGINT NOT NULL
	)`,
	// Usage counts by day (YYYY-MM-DD, UTC), service, group and who asked
	// (an API key's id, a service token's id, or neither); flushed from
	// memory with additive upserts.
	`CREATE TABLE usage_counts (
		day TEXT NOT NULL,
		service TEXT NOT NULL,
		grp TEXT NOT NULL,
		key_id TEXT NOT NULL DEFAULT '',
		token_id TEXT NOT NULL DEFAULT '',
		value BIGINT NOT NULL,
		PRIMARY KEY (day, service, grp, key_id, token_id)
	)`,
	`CREATE INDEX usage_counts_key ON usage_counts (key_id, day)`,
	`CREATE INDEX usage_counts_token ON usage_counts (token_id, day)`,
	// Dataset ingests of the account API share the ingests table with the
	// admin API's tileset ingests (kind tells them apart).
	`ALTER TABLE ingests ADD COLUMN kind TEXT NOT NULL DEFAULT 'tileset'`,
	`ALTER TABLE ingests ADD COLUMN progress DOUBLE PRECISION NOT NULL DEFAULT 0`,
	`ALTER TABLE ingests ADD COLUMN upload_type TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE ingests ADD COLUMN upload_id TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE ingests ADD COLUMN object_key TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE ingests ADD COLUMN part_size BIGINT NOT NULL DEFAULT 0`,
	`ALTER TABLE ingests ADD COLUMN output_type TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE ingests ADD COLUMN lease_owner TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE ingests ADD COLUMN lease_until TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE ingests ADD COLUMN seq BIGINT NOT NULL DEFAULT 0`,
	// Usage counts summed over keys and tokens, written in the same
	// transaction as usage_counts: the services classifier's year-long
	// timelines read a few thousand rows instead of every key's.
	`CREATE TABLE usage_services (
		day TEXT NOT NULL,
		service TEXT NOT NULL,
		grp TEXT NOT NULL,
		value BIGINT NOT NULL,
		PRIMARY KEY (day, service, grp)
	)`,
	// The analytics' reads by key and by token: a covering index in the
	// order they group by (no table lookups, no sort).
	`CREATE INDEX usage_counts_items ON usage_counts (day, grp, key_id, token_id, value)`,
	// ... replaced by one that leads with the group: a query for one group
	// reads only that group's entries, still in its grouping order.
	`DROP INDEX usage_counts_items`,
	`CREATE INDEX usage_counts_grp ON usage_counts (grp, day, key_id, token_id, value)`,
	// The reads by token: only the rows with a token (few), whatever the
	// number of keys.
	`CREATE INDEX usage_counts_grp_token ON usage_counts (grp, token_id, day, value)`,
	// The counts of each key and token by group and month, one column per
	// day of the month (d01..d31), summed over services and written in the
	// same transaction as usage_counts: the analytics' reads by key or
	// token read one row per key and month instead of one per key and day.
	usageItemMonthsTable,
	usageItemMonthsBackfill,
	// ... which makes these two indexes (the reads by key and by token)
	// dead weight on every flush.
	`DROP INDEX usage_counts_grp`,
	`DROP INDEX usage_counts_grp_token`,
	// Pre-render jobs share the ingests table (kind prerender): what to
	// render, as JSON.
	`ALTER TABLE ingests ADD COLUMN params TEXT NOT NULL DEFAULT ''`,
}

// migrationLock is the PostgreSQL advisory lock key that makes one node at
// a time migrate; the others wait for it and then find nothing to do.
const migrationLock = 0x7e55e7a

// migrate brings the schema up to date. On PostgreSQL the steps run on one
// connection holding the advisory lock.
func (s *DB) migrate(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if s.dialect == Postgres {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var v int
	err = conn.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := conn.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("migrate: the database has schema version %d, newer than this program's %d", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, s.bind(`UPDATE schema_version SET version = ?`), i+1); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate to %d: %w", i+1, err)
		}
	}
	return nil
}

// SchemaVersion is the number of migration steps applied.
func (s *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.queryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}
