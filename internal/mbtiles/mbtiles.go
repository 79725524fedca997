// Package mbtiles reads and writes MBTiles files (SQLite databases holding a
// tile pyramid in the TMS row order and a name/value metadata table).
package mbtiles

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

// dsn returns a modernc.org/sqlite data source name for path with the given
// URI parameters and pragmas.
func dsn(path string, params url.Values, pragmas ...string) string {
	q := url.Values{}
	for k, v := range params {
		q[k] = v
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	u := url.URL{Scheme: "file", Opaque: escapePath(path), RawQuery: q.Encode()}
	return u.String()
}

// escapePath keeps a file path usable inside a file: URI.
func escapePath(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

// MaxConns is the largest number of database connections a Reader keeps
// open (and so of tiles it reads at once).
const MaxConns = 4

// ErrNotMBTiles is returned when a file is not a readable MBTiles database.
var ErrNotMBTiles = errors.New("not an MBTiles file")

// flipY converts between the XYZ and TMS row numbering at zoom z.
func flipY(z, y int) int { return (1 << uint(z)) - 1 - y }

// Reader reads tiles and metadata from an MBTiles file. It is safe for
// concurrent use.
type Reader struct {
	path string
	db   *sql.DB
	tile *sql.Stmt
}

// Open opens the MBTiles file at path read-only and checks that it has the
// tiles and metadata tables.
func Open(ctx context.Context, path string) (*Reader, error) {
	// A small page cache per connection: a server may hold hundreds of
	// files open, and served tiles are cached above this layer.
	db, err := sql.Open("sqlite", dsn(path, url.Values{"mode": {"ro"}}, "busy_timeout(5000)", "query_only(1)", "cache_size(-512)"))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(MaxConns)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(time.Minute)
	r := &Reader{path: path, db: db}
	if err := r.check(ctx); err != nil {
		db.Close()
		return nil, err
	}
	r.tile, err = db.PrepareContext(ctx, `SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?`)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotMBTiles, err)
	}
	return r, nil
}

func (r *Reader) check(ctx context.Context) error {
	rows, err := r.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type IN ('table','view')`)
	if err != nil {
		return fmt.Errorf("%s: %w: %v", r.path, ErrNotMBTiles, err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("%s: %w: %v", r.path, ErrNotMBTiles, err)
		}
		have[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w: %v", r.path, ErrNotMBTiles, err)
	}
	if !have["tiles"] || !have["metadata"] {
		return fmt.Errorf("%s: %w: missing the tiles or metadata table", r.path, ErrNotMBTiles)
	}
	return nil
}

// Metadata returns the name/value pairs of the metadata table.
func (r *Reader) Metadata(ctx context.Context) (map[string]string, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT name, value FROM metadata`)
	if err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", r.path, err)
	}
	defer rows.Close()
	md := map[string]string{}
	for rows.Next() {
		var name, value sql.NullString
		if err := rows.Scan(&name, &value); err != nil {
			return nil, fmt.Errorf("read metadata of %s: %w", r.path, err)
		}
		if name.Valid {
			md[name.String] = value.String
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", r.path, err)
	}
	return md, nil
}

// Tile returns the stored bytes of tile z/x/y in the XYZ scheme (rows
// counted from the north), or nil when the tile is absent.
func (r *Reader) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	var data []byte
	err := r.tile.QueryRowContext(ctx, z, x, flipY(z, y)).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read tile %d/%d/%d of %s: %w", z, x, y, r.path, err)
	}
	return data, nil
}

// AnyTile returns one stored tile (the first at the lowest zoom), for
// sniffing the format of files without a format in their metadata.
func (r *Reader) AnyTile(ctx context.Context) ([]byte, error) {
	var data []byte
	err := r.db.QueryRowContext(ctx, `SELECT tile_data FROM tiles ORDER BY zoom_level LIMIT 1`).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read a tile of %s: %w", r.path, err)
	}
	return data, nil
}

// ZoomRange returns the lowest and highest zoom that hold tiles.
func (r *Reader) ZoomRange(ctx context.Context) (minZoom, maxZoom int, ok bool, err error) {
	var lo, hi sql.NullInt64
	if err := r.db.QueryRowContext(ctx, `SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles`).Scan(&lo, &hi); err != nil {
		return 0, 0, false, fmt.Errorf("read zoom range of %s: %w", r.path, err)
	}
	if !lo.Valid || !hi.Valid {
		return 0, 0, false, nil
	}
	return int(lo.Int64), int(hi.Int64), true, nil
}

// Coord is a tile address in the XYZ scheme.
type Coord struct{ Z, X, Y int }

// Each calls fn for every tile in the file, in storage order, with its XYZ
// address. It stops at the first error fn returns.
func (r *Reader) Each(ctx context.Context, fn func(c Coord, data []byte) error) error {
	rows, err := r.db.QueryContext(ctx, `SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles`)
	if err != nil {
		return fmt.Errorf("list tiles of %s: %w", r.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Coord
		var data []byte
		if err := rows.Scan(&c.Z, &c.X, &c.Y, &data); err != nil {
			return fmt.Errorf("list tiles of %s: %w", r.path, err)
		}
		if c.Z < 0 || c.Z > 30 {
			continue
		}
		c.Y = flipY(c.Z, c.Y)
		if err := fn(c, data); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list tiles of %s: %w", r.path, err)
	}
	return nil
}

// Close releases the database.
func (r *Reader) Close() error {
	if r.tile != nil {
		r.tile.Close()
	}
	return r.db.Close()
}

// Check runs SQLite's consistency check over the whole file, so that a
// truncated or damaged upload is refused before it is served.
func (r *Reader) Check(ctx context.Context) error {
	rows, err := r.db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return fmt.Errorf("check %s: %w", r.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("check %s: %w", r.path, err)
		}
		if s != "ok" && len(problems) < 5 {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check %s: %w", r.path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s is damaged: %s", r.path, strings.Join(problems, "; "))
	}
	return nil
}
