package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tesseramaps/tessera/internal/changefeed"
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
	// The account API's fields (spec 001 B): a description, an
	// attribution (nil: none), and the order of its lists (set on create).
	Description string
	Attribution *string
	Seq         int64
}

const tilesetCols = `id, name, title, source, storage, published, created, changed, description, attribution, seq`

func scanTileset(sc interface{ Scan(...any) error }) (Tileset, error) {
	var t Tileset
	var pub int
	var attr sql.NullString
	err := sc.Scan(&t.ID, &t.Name, &t.Title, &t.Source, &t.Storage, &pub, &t.Created, &t.Changed, &t.Description, &attr, &t.Seq)
	t.Published = pub != 0
	if attr.Valid {
		t.Attribution = &attr.String
	}
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

// CreateTileset inserts a new record, after every other in the account
// API's order (its Seq is set here); ErrConflict when its name or source is
// taken.
func (s *DB) CreateTileset(ctx context.Context, t Tileset) (Tileset, error) {
	t.Created, t.Changed = now(), now()
	err := s.queryRow(ctx, `INSERT INTO tilesets (`+tilesetCols+`)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(MAX(seq), 0) + 1 FROM tilesets RETURNING seq`,
		t.ID, t.Name, t.Title, t.Source, t.Storage, boolInt(t.Published), t.Created, t.Changed, t.Description, t.Attribution).Scan(&t.Seq)
	if isUnique(err) {
		return Tileset{}, fmt.Errorf("tileset %q: %w", t.Name, ErrConflict)
	}
	if err != nil {
		return Tileset{}, fmt.Errorf("create tileset %q: %w", t.Name, err)
	}
	s.announce(ctx, changefeed.Tileset, t.ID)
	return t, nil
}

// UpdateTileset writes the name, title, publication, description and
// attribution of a record.
func (s *DB) UpdateTileset(ctx context.Context, t Tileset) (Tileset, error) {
	t.Changed = now()
	res, err := s.exec(ctx, `UPDATE tilesets SET name = ?, title = ?, published = ?, changed = ?, description = ?, attribution = ? WHERE id = ?`,
		t.Name, t.Title, boolInt(t.Published), t.Changed, t.Description, t.Attribution, t.ID)
	if isUnique(err) {
		return Tileset{}, fmt.Errorf("tileset name %q: %w", t.Name, ErrConflict)
	}
	if err != nil {
		return Tileset{}, fmt.Errorf("update tileset %s: %w", t.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Tileset{}, fmt.Errorf("tileset %s: %w", t.ID, ErrNotFound)
	}
	s.announce(ctx, changefeed.Tileset, t.ID)
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
	s.announce(ctx, changefeed.Tileset, id)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MarkTilesetRemoved records that the account API removed the tileset with
// the id (it answers 410 from then on); marking twice is harmless.
func (s *DB) MarkTilesetRemoved(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `INSERT INTO removed_tilesets (id, removed) VALUES (?, ?) ON CONFLICT(id) DO NOTHING`, id, now()); err != nil {
		return fmt.Errorf("mark tileset %s removed: %w", id, err)
	}
	return nil
}

// UnmarkTilesetRemoved drops the mark (a removal that failed).
func (s *DB) UnmarkTilesetRemoved(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `DELETE FROM removed_tilesets WHERE id = ?`, id); err != nil {
		return fmt.Errorf("unmark tileset %s: %w", id, err)
	}
	return nil
}

// TilesetRemoved tells whether the account API removed the tileset.
func (s *DB) TilesetRemoved(ctx context.Context, id string) (bool, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM removed_tilesets WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("read removal of tileset %s: %w", id, err)
	}
	return n > 0, nil
}

// UpdateTilesetSource points a record at another file.
func (s *DB) UpdateTilesetSource(ctx context.Context, id, source string) (Tileset, error) {
	res, err := s.exec(ctx, `UPDATE tilesets SET source = ?, changed = ? WHERE id = ?`, source, now(), id)
	if isUnique(err) {
		return Tileset{}, fmt.Errorf("tileset source %q: %w", source, ErrConflict)
	}
	if err != nil {
		return Tileset{}, fmt.Errorf("update tileset %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Tileset{}, fmt.Errorf("tileset %s: %w", id, ErrNotFound)
	}
	s.announce(ctx, changefeed.Tileset, id)
	return s.Tileset(ctx, id)
}
