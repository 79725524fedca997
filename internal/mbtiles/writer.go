package mbtiles

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync"
)

// batchSize is the number of tiles written per transaction.
const batchSize = 2000

// Writer creates an MBTiles file. Tiles are taken in the XYZ scheme and
// stored in the TMS row order the format requires. It is safe for concurrent
// use. The caller writes to a temporary path and renames it when done, so
// that a crash never leaves a half-made tileset under its final name.
type Writer struct {
	path string
	db   *sql.DB

	mu      sync.Mutex
	tx      *sql.Tx
	ins     *sql.Stmt
	pending int
}

// Create makes a new MBTiles file at path (which must not exist yet).
func Create(path string) (*Writer, error) {
	db, err := sql.Open("sqlite", dsn(path, url.Values{"mode": {"rwc"}}, "journal_mode(OFF)", "synchronous(OFF)", "page_size(4096)"))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	stmts := []string{
		`CREATE TABLE metadata (name TEXT NOT NULL, value TEXT)`,
		`CREATE UNIQUE INDEX metadata_name ON metadata (name)`,
		`CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB)`,
		`CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
	}
	return &Writer{path: path, db: db}, nil
}

// PutTile stores the tile z/x/y (XYZ scheme), replacing any earlier one.
func (w *Writer) PutTile(ctx context.Context, z, x, y int, data []byte) error {
	if z < 0 || z > 30 || x < 0 || y < 0 || x >= 1<<uint(z) || y >= 1<<uint(z) {
		return fmt.Errorf("put tile %d/%d/%d: outside the tile grid", z, x, y)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tx == nil {
		// The transaction spans many calls, each with its own context: it
		// must not end when one of those contexts does.
		tx, err := w.db.BeginTx(context.Background(), nil)
		if err != nil {
			return fmt.Errorf("write %s: %w", w.path, err)
		}
		ins, err := tx.Prepare(`INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)`)
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("write %s: %w", w.path, err)
		}
		w.tx, w.ins = tx, ins
	}
	if _, err := w.ins.Exec(z, x, flipY(z, y), data); err != nil {
		return fmt.Errorf("write tile %d/%d/%d to %s: %w", z, x, y, w.path, err)
	}
	w.pending++
	if w.pending >= batchSize {
		return w.commitLocked()
	}
	return nil
}

func (w *Writer) commitLocked() error {
	if w.tx == nil {
		return nil
	}
	w.ins.Close()
	err := w.tx.Commit()
	w.tx, w.ins, w.pending = nil, nil, 0
	if err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	return nil
}

// SetMetadata stores name/value pairs in the metadata table.
func (w *Writer) SetMetadata(ctx context.Context, md map[string]string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.commitLocked(); err != nil {
		return err
	}
	for k, v := range md {
		if _, err := w.db.ExecContext(ctx, `INSERT OR REPLACE INTO metadata (name, value) VALUES (?, ?)`, k, v); err != nil {
			return fmt.Errorf("write metadata %q to %s: %w", k, w.path, err)
		}
	}
	return nil
}

// Close commits what is pending and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.commitLocked()
	if cerr := w.db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", w.path, cerr)
	}
	return err
}
