package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Storage values of a tileset record.
const (
	StorageFile = "file" // a file in DATA_DIR/tiles; Source is the file name
	StorageHTTP = "http" // a remote PMTiles archive read with HTTP range requests
	StorageS3   = "s3"   // a remote PMTiles archive in S3
)

// Tileset is the persistent record of one tileset.
type Tileset struct {
	ID        string // UUID, stable across restarts
	Name      string // public id used in URLs
	Title     string
	Source    string // file name inside tiles/ or the remote URL
	Storage   string // StorageFile, StorageHTTP or StorageS3
	Published bool
	Created   string
	Changed   string
}

const tilesetCols = `id, name, title, source, storage, published, created, changed`

func scanTileset(sc interface{ Scan(...any) error }) (Tileset, error) {
	var t Tileset
	var pub int
	err := sc.Scan(&t.ID, &t.Name, &t.Title, &t.Source, &t.Storage, &pub, &t.Created, &t.Changed)
	t.Published = pub != 0
	return t, err
}

// Tilesets returns every tileset record, ordered by name.
func (s *DB) Tilesets(ctx context.Context) ([]Tileset, error) {
	rows, err := s.query(ctx, `SELECT `+tilesetCols+` FROM tilesets ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list tilesets: %w", err)
	}
	defer rows.Close()
	var out []Tileset
	for rows.Next() {
		t, err := scanTileset(rows)
		if err != nil {
			return nil, fmt.Errorf("list tilesets: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tilesets: %w", err)
	}
	return out, nil
}

// Tileset returns the record with the given id.
func (s *DB) Tileset(ctx context.Context, id string) (Tileset, error) {
	t, err := scanTileset(s.queryRow(ctx, `SELECT `+tilesetCols+` FROM tilesets WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Tileset{}, fmt.Errorf("tileset %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Tileset{}, fmt.Errorf("read tileset %s: %w", id, err)
	}
	return t, nil
}

// CreateTileset inserts a new record; ErrConflict when its name or source is
// taken.
func (s *DB) CreateTileset(ctx context.Context, t Tileset) (Tileset, error) {
	t.Created, t.Changed = now(), now()
	_, err := s.exec(ctx, `INSERT INTO tilesets (`+tilesetCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Name, t.Title, t.Source, t.Storage, boolInt(t.Published), t.Created, t.Changed)
	if isUnique(err) {
		return Tileset{}, fmt.Errorf("tileset %q: %w", t.Name, ErrConflict)
	}
	if err != nil {
		return Tileset{}, fmt.Errorf("create tileset %q: %w", t.Name, err)
	}
	return t, nil
}

// UpdateTileset writes the name, title and publication of a record.
func (s *DB) UpdateTileset(ctx context.Context, t Tileset) (Tileset, error) {
	t.Changed = now()
	res, err := s.exec(ctx, `UPDATE tilesets SET name = ?, title = ?, published = ?, changed = ? WHERE id = ?`,
		t.Name, t.Title, boolInt(t.Published), t.Changed, t.ID)
	if isUnique(err) {
		return Tileset{}, fmt.Errorf("tileset name %q: %w", t.Name, ErrConflict)
	}
	if err != nil {
		return Tileset{}, fmt.Errorf("update tileset %s: %w", t.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Tileset{}, fmt.Errorf("tileset %s: %w", t.ID, ErrNotFound)
	}
	return t, nil
}

// DeleteTileset removes a record.
func (s *DB) DeleteTileset(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM tilesets WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete tileset %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("tileset %s: %w", id, ErrNotFound)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
