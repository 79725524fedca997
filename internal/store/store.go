// Package store keeps Tessera's persistent state: tileset records (names,
// titles, publication, remote archives), maps, ingest sessions, server
// settings such as the generated admin token, and the hosted platform's API
// keys, service tokens and usage counts.
//
// One type, DB, serves two databases through database/sql: SQLite in the
// data directory (DATA_DIR/state.db, the embedded default) and PostgreSQL
// (a database_url), which several server nodes can share. Both get the same
// migrations and the same queries: statements are written with `?`
// placeholders and portable SQL (ON CONFLICT upserts, TEXT, BIGINT, DOUBLE
// PRECISION), and the placeholders become `$n` for PostgreSQL.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver

	"github.com/tesseramaps/tessera/internal/changefeed"
)

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a unique name is already taken.
var ErrConflict = errors.New("already exists")

// Dialect names the database behind a DB.
type Dialect string

// The two databases a DB can use.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is the state database. It is safe for concurrent use.
type DB struct {
	db      *sql.DB
	dialect Dialect
	// bound caches statements rewritten for PostgreSQL's placeholders.
	bound sync.Map // string -> string
	// calls counts the statements sent (queries, executions, transactions
	// begun, announcements): /metrics shows it, and tests use it to see
	// that the hot path makes none.
	calls atomic.Uint64
	// node is this process's id in the change announcements.
	node string
	// unannounced counts changes committed whose announcement failed.
	unannounced atomic.Uint64
}

// Calls is the number of statements sent to the database so far.
func (s *DB) Calls() uint64 { return s.calls.Load() }

// Node is the id this process puts in its change announcements.
func (s *DB) Node() string { return s.node }

// Unannounced counts the committed changes whose announcement failed
// (other nodes see them at their next full reload).
func (s *DB) Unannounced() uint64 { return s.unannounced.Load() }

// announce tells the other nodes sharing a PostgreSQL database of a
// committed change (NOTIFY on changefeed.Channel); on SQLite there are no
// other nodes. The change stands even if the announcement fails: it is
// counted, and the other nodes see it at their next full reload.
func (s *DB) announce(ctx context.Context, kind changefeed.Kind, id string) {
	if s.dialect != Postgres {
		return
	}
	ev := changefeed.Event{Kind: kind, ID: id, Node: s.node}
	if _, err := s.exec(context.WithoutCancel(ctx), `SELECT pg_notify(?, ?)`, changefeed.Channel, ev.Encode()); err != nil {
		s.unannounced.Add(1)
	}
}

// IsPostgres tells whether a database address names PostgreSQL
// (postgres:// or postgresql://) rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens (creating if needed) the state database and brings its schema
// up to date. dsn is a PostgreSQL URL (see IsPostgres) or the path of a
// SQLite file.
func Open(ctx context.Context, dsn string) (*DB, error) {
	if IsPostgres(dsn) {
		return openPostgres(ctx, dsn)
	}
	return openSQLite(ctx, dsn)
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
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
	s := &DB{db: db, dialect: SQLite, node: changefeed.NewNodeID()}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", redactDSN(dsn), err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open state %s: %w", redactDSN(dsn), err)
	}
	s := &DB{db: db, dialect: Postgres, node: changefeed.NewNodeID()}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open state %s: %w", redactDSN(dsn), err)
	}
	return s, nil
}

// redactDSN drops the password of a database URL for messages.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(database url)"
	}
	return u.Redacted()
}

// Close closes the database.
func (s *DB) Close() error { return s.db.Close() }

// Dialect tells which database this is.
func (s *DB) Dialect() Dialect { return s.dialect }

// Ping checks that the database answers.
func (s *DB) Ping(ctx context.Context) error {
	s.calls.Add(1)
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping state database: %w", err)
	}
	return nil
}

// bind rewrites a statement's `?` placeholders for the database: `$1`,
// `$2`, ... for PostgreSQL. Question marks inside quoted strings are kept.
func (s *DB) bind(q string) string {
	if s.dialect != Postgres {
		return q
	}
	if b, ok := s.bound.Load(q); ok {
		return b.(string)
	}
	b := numberPlaceholders(q)
	s.bound.Store(q, b)
	return b
}

// numberPlaceholders turns each `?` outside single-quoted strings into `$n`.
func numberPlaceholders(q string) string {
	var sb strings.Builder
	sb.Grow(len(q) + 8)
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			sb.WriteByte('$')
			sb.WriteString(strconv.Itoa(n))
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// querier is what a DB and a transaction share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Tx is a transaction with the same statement helpers as DB.
type Tx struct {
	s  *DB
	tx *sql.Tx
}

func (s *DB) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	s.calls.Add(1)
	return s.db.ExecContext(ctx, s.bind(q), args...)
}

func (s *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s.calls.Add(1)
	return s.db.QueryContext(ctx, s.bind(q), args...)
}

func (s *DB) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	s.calls.Add(1)
	return s.db.QueryRowContext(ctx, s.bind(q), args...)
}

func (t *Tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	t.s.calls.Add(1)
	return t.tx.ExecContext(ctx, t.s.bind(q), args...)
}

func (t *Tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	t.s.calls.Add(1)
	return t.tx.QueryContext(ctx, t.s.bind(q), args...)
}

func (t *Tx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	t.s.calls.Add(1)
	return t.tx.QueryRowContext(ctx, t.s.bind(q), args...)
}

// inTx runs fn in a transaction, committing when it returns nil and rolling
// back otherwise.
func (s *DB) inTx(ctx context.Context, fn func(tx *Tx) error) error {
	s.calls.Add(1)
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(&Tx{s: s, tx: sqlTx}); err != nil {
		sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Setting returns the value of a setting, or ErrNotFound.
func (s *DB) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := s.queryRow(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
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
	if _, err := s.exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("write setting %s: %w", key, err)
	}
	return nil
}

// SetSettingIfAbsent stores a setting unless it exists, and returns the value
// kept: the new one, or the one another writer stored first.
func (s *DB) SetSettingIfAbsent(ctx context.Context, key, value string) (string, error) {
	if _, err := s.exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`, key, value); err != nil {
		return "", fmt.Errorf("write setting %s: %w", key, err)
	}
	return s.Setting(ctx, key)
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// isUnique tells whether err is a unique constraint's refusal, in either
// database.
func isUnique(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505" // unique_violation
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}
