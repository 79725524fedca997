package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tesseramaps/tessera/internal/changefeed"
)

// Map is the persistent settings of one map (a style in DATA_DIR/maps/<id>).
type Map struct {
	ID        string
	Published bool
	// Format of raster tiles and static images: png, jpeg or webp.
	Format string
	// Quality of lossy formats, 0..100.
	Quality int
	Created string
	Changed string
}

const mapCols = `id, published, format, quality, created, changed`

func scanMap(sc interface{ Scan(...any) error }) (Map, error) {
	var m Map
	var pub int
	err := sc.Scan(&m.ID, &pub, &m.Format, &m.Quality, &m.Created, &m.Changed)
	m.Published = pub != 0
	return m, err
}

// Maps returns every map record, ordered by id.
func (s *DB) Maps(ctx context.Context) ([]Map, error) {
	rows, err := s.query(ctx, `SELECT `+mapCols+` FROM maps ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list maps: %w", err)
	}
	defer rows.Close()
	var out []Map
	for rows.Next() {
		m, err := scanMap(rows)
		if err != nil {
			return nil, fmt.Errorf("list maps: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Map returns the record with the given id.
func (s *DB) Map(ctx context.Context, id string) (Map, error) {
	m, err := scanMap(s.queryRow(ctx, `SELECT `+mapCols+` FROM maps WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Map{}, fmt.Errorf("map %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Map{}, fmt.Errorf("read map %s: %w", id, err)
	}
	return m, nil
}

// PutMap inserts or updates a map record.
func (s *DB) PutMap(ctx context.Context, m Map) (Map, error) {
	m.Changed = now()
	if m.Created == "" {
		m.Created = m.Changed
	}
	_, err := s.exec(ctx, `INSERT INTO maps (`+mapCols+`) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET published = excluded.published, format = excluded.format, quality = excluded.quality, changed = excluded.changed`,
		m.ID, boolInt(m.Published), m.Format, m.Quality, m.Created, m.Changed)
	if err != nil {
		return Map{}, fmt.Errorf("write map %s: %w", m.ID, err)
	}
	s.announce(ctx, changefeed.Map, m.ID)
	return m, nil
}

// DeleteMap removes a map record.
func (s *DB) DeleteMap(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM maps WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete map %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("map %s: %w", id, ErrNotFound)
	}
	s.announce(ctx, changefeed.Map, id)
	return nil
}
