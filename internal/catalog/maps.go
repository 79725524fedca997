package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

// ErrMapNotFound is returned for an unknown map id.
var ErrMapNotFound = errors.New("map not found")

// MapFormats are the image formats a map's raster tiles and static images
// may use.
var MapFormats = []string{"png", "jpeg", "webp"}

// StyleFile is the name of a map's style inside its folder.
const StyleFile = "style.json"

// IconsDir is the folder of a map's icons inside its folder.
const IconsDir = "icons"

// StyleCheck reads the style document of the map in dir.
type StyleCheck func(dir string, raw []byte) StyleReport

// StyleReport is what a StyleCheck finds in a style.
type StyleReport struct {
	// Title is the style's name.
	Title string
	// Problems make the style unservable (empty when valid).
	Problems []string
	// Warnings name fonts and icons the style uses that the server lacks;
	// the map is still served.
	Warnings []string
	// Tilesets are the names of the server's tilesets the sources name.
	Tilesets []string
	// View is the style's initial view (center and zoom), when it has one.
	View *View
}

// View is a style's initial view: center longitude, latitude and zoom.
type View struct {
	Lon, Lat, Zoom float64
}

// Map is one map (DATA_DIR/maps/<id>/style.json) as the catalog knows it.
// Maps are immutable: a change makes a new Map.
type Map struct {
	store.Map
	// Dir is the map's folder.
	Dir string
	// Title is the style's name (the id when it has none).
	Title string
	// Style is the raw style document as read.
	Style []byte
	// State is StateOK, StateError (Problems says why) or StateMissing.
	State    string
	Problems []string
	// Warnings name fonts and icons the style uses that the server lacks
	// (tilesets are checked when asked: see MissingTilesets).
	Warnings []string
	// Tilesets are the names of the server's tilesets its sources name.
	Tilesets []string
	// View is the style's initial view, nil when it names none.
	View *View
	// Gen changes whenever the style is re-read: caches key on it.
	Gen uint64

	modTime time.Time
	size    int64
}

// MissingTilesets lists, as warnings, the tilesets the map's sources name
// that has (the tileset catalog) does not know.
func (m *Map) MissingTilesets(has func(name string) bool) []string {
	var out []string
	for _, name := range m.Tilesets {
		if !has(name) {
			out = append(out, fmt.Sprintf("tileset %q named by a source does not exist: the map draws without it", name))
		}
	}
	return out
}

// NamingTileset returns the ids of the maps whose sources name the tileset
// called name.
func (ms *Maps) NamingTileset(name string) []string {
	var ids []string
	for _, m := range ms.List() {
		if slices.Contains(m.Tilesets, name) {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// Served reports whether public endpoints serve this map.
func (m *Map) Served() bool { return m.Published && m.State == StateOK }

// IconsPath is the folder of the map's icons.
func (m *Map) IconsPath() string { return filepath.Join(m.Dir, IconsDir) }

type mapSnapshot struct {
	byID map[string]*Map
	list []*Map
}

// Maps is the registry of maps. Lookups are lock-free; changes are
// serialised.
type Maps struct {
	dir   string
	db    *store.DB
	log   *slog.Logger
	check StyleCheck

	mu   sync.Mutex
	snap atomic.Pointer[mapSnapshot]
	gen  atomic.Uint64
	only map[string]bool // nil: every map

	// removeShared, when set, deletes the shared copy of a map's folder
	// (storage_url) when the map is deleted.
	removeShared func(ctx context.Context, folder string) error
	// share, when set, puts a style written by SetStyle in the shared
	// storage (the file's path), before its record announces the change.
	share func(ctx context.Context, path string) error
}

// ShareRemovals makes Delete remove the shared copy of a deleted map's
// folder too, with remove (given the folder's name in the maps
// directory). Call it before the maps are used.
func (ms *Maps) ShareRemovals(remove func(ctx context.Context, folder string) error) {
	ms.removeShared = remove
}

// ShareStyles makes SetStyle put each style it writes in the shared
// storage through share (given the file's path) before the change is
// announced to the other nodes.
func (ms *Maps) ShareStyles(share func(ctx context.Context, path string) error) { ms.share = share }

// SetStyle replaces the style of the map with the id by raw. A style
// with problems is refused (ErrBadMapChange, nothing written); a valid one
// is written in one rename, shared, and the map's record touched, which
// announces the change to the other nodes (they fetch the style from the
// shared storage and Scan again).
func (ms *Maps) SetStyle(ctx context.Context, id string, raw []byte) (*Map, error) {
	if len(raw) > MaxStyleBytes {
		return nil, fmt.Errorf("%w: the style has %d bytes, more than the limit of %d", ErrBadMapChange, len(raw), MaxStyleBytes)
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	byID, m, err := ms.editing(id)
	if err != nil {
		return nil, err
	}
	if rep := ms.check(m.Dir, raw); len(rep.Problems) > 0 {
		return nil, fmt.Errorf("%w: the style has problems: %s", ErrBadMapChange, strings.Join(rep.Problems, "; "))
	}
	path := filepath.Join(m.Dir, StyleFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		return nil, fmt.Errorf("write the style of map %s: %w", id, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write the style of map %s: %w", id, err)
	}
	if ms.share != nil {
		if err := ms.share(ctx, path); err != nil {
			return nil, err
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("write the style of map %s: %w", id, err)
	}
	rec, err := ms.db.PutMap(ctx, m.Map) // its change time moves; the change is announced
	if err != nil {
		return nil, err
	}
	nm := ms.read(rec, path, st)
	byID[id] = nm
	ms.publish(byID)
	return nm, nil
}

// Only limits the maps scans read (and check) to the ids given; the other
// folders of the maps directory are passed over. Call it before the first
// Scan.
func (ms *Maps) Only(ids ...string) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.only = map[string]bool{}
	for _, id := range ids {
		ms.only[id] = true
	}
}

// NewMaps makes the registry over the maps directory dir. check validates
// styles (nil accepts any JSON object).
func NewMaps(dir string, db *store.DB, check StyleCheck, log *slog.Logger) *Maps {
	if log == nil {
		log = slog.Default()
	}
	if check == nil {
		check = func(string, []byte) StyleReport { return StyleReport{} }
	}
	m := &Maps{dir: dir, db: db, log: log, check: check}
	m.snap.Store(&mapSnapshot{byID: map[string]*Map{}})
	return m
}

// Dir is the maps directory.
func (ms *Maps) Dir() string { return ms.dir }

// Get returns the map with the id.
func (ms *Maps) Get(id string) (*Map, bool) {
	m, ok := ms.snap.Load().byID[id]
	return m, ok
}

// List returns every map, ordered by id.
func (ms *Maps) List() []*Map { return ms.snap.Load().list }

// editing returns a copy of the maps by id (see current) and the map with
// the id in it, or ErrMapNotFound. The caller holds ms.mu.
func (ms *Maps) editing(id string) (map[string]*Map, *Map, error) {
	byID := ms.current()
	m, ok := byID[id]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrMapNotFound, id)
	}
	return byID, m, nil
}

func (ms *Maps) publish(byID map[string]*Map) {
	s := &mapSnapshot{byID: byID}
	for _, m := range byID {
		s.list = append(s.list, m)
	}
	slices.SortFunc(s.list, func(a, b *Map) int { return strings.Compare(a.ID, b.ID) })
	ms.snap.Store(s)
}

func (ms *Maps) current() map[string]*Map {
	cur := ms.snap.Load().byID
	out := make(map[string]*Map, len(cur))
	for k, v := range cur {
		out[k] = v
	}
	return out
}

// Scan reads the maps directory: new maps are recorded (published, png,
// quality 90), changed styles are re-read and checked, and maps whose
// folder is gone are dropped from the registry (their settings stay in the
// state database, so a map that comes back keeps them).
func (ms *Maps) Scan(ctx context.Context) error {
	if err := os.MkdirAll(ms.dir, 0o755); err != nil {
		return fmt.Errorf("make maps directory: %w", err)
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	des, err := os.ReadDir(ms.dir)
	if err != nil {
		return fmt.Errorf("scan %s: %w", ms.dir, err)
	}
	byID := ms.current()
	seen := map[string]bool{}
	for _, de := range des {
		id := de.Name()
		if !de.IsDir() || strings.HasPrefix(id, ".") || ValidName(id) != nil || strings.Contains(id, " ") || (ms.only != nil && !ms.only[id]) {
			continue
		}
		path := filepath.Join(ms.dir, id, StyleFile)
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		seen[id] = true
		if old, ok := byID[id]; ok && old.modTime.Equal(st.ModTime()) && old.size == st.Size() {
			continue
		}
		rec, err := ms.db.Map(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			rec, err = ms.db.PutMap(ctx, store.Map{ID: id, Published: true, Format: "png", Quality: 90})
		}
		if err != nil {
			ms.log.Error("record map", "map", id, "err", err)
			continue
		}
		byID[id] = ms.read(rec, path, st)
	}
	for id := range byID {
		if !seen[id] {
			delete(byID, id)
			ms.log.Warn("map folder gone", "map", id)
		}
	}
	ms.publish(byID)
	return nil
}

// MaxStyleBytes bounds a style document.
const MaxStyleBytes = 16 << 20

// read loads and checks a map's style.
func (ms *Maps) read(rec store.Map, path string, st os.FileInfo) *Map {
	m := &Map{Map: rec, Dir: filepath.Dir(path), Title: rec.ID, State: StateOK, Gen: ms.gen.Add(1), modTime: st.ModTime(), size: st.Size()}
	if st.Size() > MaxStyleBytes {
		m.State, m.Problems = StateError, []string{fmt.Sprintf("style.json has %d bytes, more than the limit of %d", st.Size(), MaxStyleBytes)}
		ms.log.Error("map style unusable", "map", rec.ID, "problems", m.Problems)
		return m
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		m.State, m.Problems = StateError, []string{err.Error()}
		ms.log.Error("map style unreadable", "map", rec.ID, "err", err)
		return m
	}
	m.Style = raw
	rep := ms.check(m.Dir, raw)
	title, problems, warnings := rep.Title, rep.Problems, rep.Warnings
	if title != "" {
		m.Title = title
	}
	m.Warnings, m.Tilesets, m.View = warnings, rep.Tilesets, rep.View
	for _, w := range warnings {
		ms.log.Warn("map style reference", "map", rec.ID, "warning", w)
	}
	if len(problems) > 0 {
		m.State, m.Problems = StateError, problems
		ms.log.Error("map style invalid: not served", "map", rec.ID, "problems", len(problems), "first", problems[0])
		for _, p := range problems {
			ms.log.Warn("map style problem", "map", rec.ID, "problem", p)
		}
		return m
	}
	ms.log.Info("map loaded", "map", rec.ID, "title", m.Title)
	return m
}

// MapChange is a settings change; nil fields stay as they are.
type MapChange struct {
	Format    *string
	Quality   *int
	Published *bool
}

// ErrBadMapChange is wrapped by errors in a MapChange.
var ErrBadMapChange = errors.New("invalid map change")

// Update applies a change to the map with the id.
func (ms *Maps) Update(ctx context.Context, id string, ch MapChange) (*Map, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	byID, m, err := ms.editing(id)
	if err != nil {
		return nil, err
	}
	rec := m.Map
	if ch.Format != nil {
		if !slices.Contains(MapFormats, *ch.Format) {
			return nil, fmt.Errorf("%w: format %q is not jpeg, png or webp", ErrBadMapChange, *ch.Format)
		}
		rec.Format = *ch.Format
	}
	if ch.Quality != nil {
		if *ch.Quality < 0 || *ch.Quality > 100 {
			return nil, fmt.Errorf("%w: quality %d is outside 0..100", ErrBadMapChange, *ch.Quality)
		}
		rec.Quality = *ch.Quality
	}
	if ch.Published != nil {
		rec.Published = *ch.Published
	}
	if rec == m.Map {
		return m, nil
	}
	rec, err = ms.db.PutMap(ctx, rec)
	if err != nil {
		return nil, err
	}
	nm := *m
	nm.Map = rec
	byID[id] = &nm
	ms.publish(byID)
	return &nm, nil
}

// SetPublished publishes or unpublishes a map (idempotent).
func (ms *Maps) SetPublished(ctx context.Context, id string, published bool) (*Map, error) {
	return ms.Update(ctx, id, MapChange{Published: &published})
}

// Delete unpublishes the map, then removes its folder (style and icons)
// and its record, and returns the ids removed.
func (ms *Maps) Delete(ctx context.Context, id string) ([]string, error) {
	if _, err := ms.SetPublished(ctx, id, false); err != nil {
		return nil, err
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	byID, m, err := ms.editing(id)
	if err != nil {
		return nil, err
	}
	if filepath.Dir(m.Dir) != filepath.Clean(ms.dir) || !filepath.IsLocal(filepath.Base(m.Dir)) {
		return nil, fmt.Errorf("map folder %s is not inside %s", m.Dir, ms.dir)
	}
	if ms.removeShared != nil {
		// The shared copy first: a node that starts meanwhile must not
		// bring the folder back.
		if err := ms.removeShared(ctx, filepath.Base(m.Dir)); err != nil {
			return nil, fmt.Errorf("remove the shared copy of map %s: %w", id, err)
		}
	}
	if err := os.RemoveAll(m.Dir); err != nil {
		return nil, fmt.Errorf("remove map %s: %w", id, err)
	}
	if err := ms.db.DeleteMap(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	delete(byID, id)
	ms.publish(byID)
	ms.log.Info("map deleted", "map", id)
	return []string{id}, nil
}
