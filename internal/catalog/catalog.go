// Package catalog is the registry of tilesets: it scans the tiles directory,
// gives every tileset a stable id and a public name, keeps publication state
// in the state database, opens each tileset's source and answers lookups
// without locks on the request path.
package catalog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/egress"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/cursor"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// Entry states.
const (
	StateOK      = "ok"      // readable and served when published
	StateError   = "error"   // the file cannot be read; Error says why
	StateMissing = "missing" // the record's file is gone (removed by reload)
)

// Errors of catalog operations.
var (
	ErrNotFound  = errors.New("tileset not found")
	ErrNameTaken = errors.New("tileset name already taken")
	ErrBadName   = errors.New("invalid tileset name")
)

// Entry is one tileset as the catalog knows it. Entries are immutable: a
// change makes a new Entry, so a request may hold one without locks.
type Entry struct {
	store.Tileset
	// Type is the file type: "mbtiles" or "pmtiles".
	Type string
	// Info describes the tiles; zero when State is not StateOK.
	Info tilesource.Info
	// Reader reads the tiles; nil when State is not StateOK.
	Reader tilesource.Source
	State  string
	Error  string
	// Gen is unique to this entry's source: caches key on it.
	Gen uint64

	modTime time.Time
	size    int64
}

// TileType is "vector" or "raster" ("" when unknown).
func (e *Entry) TileType() string {
	switch {
	case e.State != StateOK:
		return ""
	case e.Info.Format.Vector():
		return "vector"
	default:
		return "raster"
	}
}

// Served reports whether public endpoints serve this tileset.
func (e *Entry) Served() bool { return e.Published && e.State == StateOK }

type snapshot struct {
	byName map[string]*Entry
	byID   map[string]*Entry
	list   []*Entry // by name
}

// Opener opens the source of a record. path is the file's full path for
// file records; remote records carry their URL in rec.Source.
type Opener func(ctx context.Context, rec store.Tileset, path string) (tilesource.Source, error)

// Catalog is the registry. Lookups are lock-free; changes are serialised.
type Catalog struct {
	dir  string
	db   *store.DB
	log  *slog.Logger
	open Opener
	// shared is the copy of the tiles directory that several nodes share
	// (nil: the directory is the only copy).
	shared Shared

	mu      sync.Mutex // serialises changes
	snap    atomic.Pointer[snapshot]
	gen     atomic.Uint64
	version atomic.Uint64

	onChange func()
}

// Options configure a Catalog.
type Options struct {
	// Opener opens sources; the default opens local files by extension.
	Opener Opener
	Logger *slog.Logger
	// OnChange is called after every change (for example to drop caches).
	OnChange func()
	// Shared, when not nil, is the copy of the tiles directory that several
	// nodes share: a finished file is put there before its record is
	// committed, a deleted one removed from it, and a file record whose
	// file this node does not have is still handed to the Opener (with
	// the path where it would be), which finds it in the shared copy.
	Shared Shared
}

// Shared is the copy of the tiles directory that several nodes share.
type Shared interface {
	// Put stores the file at path as the tiles file name.
	Put(ctx context.Context, name, path string) error
	// Remove deletes the tiles file name.
	Remove(ctx context.Context, name string) error
	// Refresh brings this node's copy of the tiles file name, when it has
	// one, in line with the shared one (another node replaced it).
	Refresh(ctx context.Context, name string) error
	// Prepare runs before every scan of the tiles directory: it shares the
	// files the shared copy lacks and removes this node's copies of files
	// deleted there, which a scan would otherwise record again.
	Prepare(ctx context.Context) error
}

// Extensions are the file extensions scanned in the tiles directory.
var Extensions = []string{".mbtiles", ".pmtiles"}

// New makes a catalog over the tiles directory dir with state in db. Call
// Load to read the records and scan the directory.
func New(dir string, db *store.DB, opts Options) *Catalog {
	c := &Catalog{dir: dir, db: db, log: opts.Logger, open: opts.Opener, onChange: opts.OnChange, shared: opts.Shared}
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.open == nil {
		c.open = OpenLocal
	}
	c.snap.Store(&snapshot{byName: map[string]*Entry{}, byID: map[string]*Entry{}})
	return c
}

// Version changes whenever the catalog does (a tileset added, removed,
// renamed, published or reopened).
func (c *Catalog) Version() uint64 { return c.version.Load() }

// Dir is the tiles directory.
func (c *Catalog) Dir() string { return c.dir }

// OpenLocal opens a file record by its extension.
func OpenLocal(ctx context.Context, rec store.Tileset, path string) (tilesource.Source, error) {
	if rec.Storage != store.StorageFile {
		return nil, fmt.Errorf("no opener for %s storage", rec.Storage)
	}
	return tilesource.OpenFileAs(ctx, path, filepath.Ext(rec.Source))
}

// Get returns the entry with the public name.
func (c *Catalog) Get(name string) (*Entry, bool) {
	e, ok := c.snap.Load().byName[name]
	return e, ok
}

// ByID returns the entry with the admin id.
func (c *Catalog) ByID(id string) (*Entry, bool) {
	e, ok := c.snap.Load().byID[id]
	return e, ok
}

// After returns at most limit entries that come after pos in the order of
// (Seq, ID) (the account API's list: the order of creation), and whether
// more follow.
func (c *Catalog) After(pos cursor.Position, limit int) (items []*Entry, more bool) {
	all := slices.Clone(c.snap.Load().list)
	slices.SortFunc(all, func(a, b *Entry) int {
		if a.Seq != b.Seq {
			return cmp.Compare(a.Seq, b.Seq)
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, e := range all {
		if !pos.After(e.Seq, e.ID) {
			continue
		}
		if len(items) == limit {
			return items, true
		}
		items = append(items, e)
	}
	return items, false
}

// List returns every entry, ordered by name.
func (c *Catalog) List() []*Entry { return c.snap.Load().list }

// publish replaces the snapshot with one holding entries.
func (c *Catalog) publish(entries map[string]*Entry) {
	s := &snapshot{byName: make(map[string]*Entry, len(entries)), byID: make(map[string]*Entry, len(entries))}
	for _, e := range entries {
		s.byName[e.Name] = e
		s.byID[e.ID] = e
		s.list = append(s.list, e)
	}
	slices.SortFunc(s.list, func(a, b *Entry) int { return strings.Compare(a.Name, b.Name) })
	c.snap.Store(s)
	c.version.Add(1)
	if c.onChange != nil {
		c.onChange()
	}
}

// current returns a mutable copy of the entries by id.
func (c *Catalog) current() map[string]*Entry {
	s := c.snap.Load()
	m := make(map[string]*Entry, len(s.byID))
	for id, e := range s.byID {
		m[id] = e
	}
	return m
}

// retire closes a source that is no longer in the catalog, after a grace
// period so that requests still holding it can finish.
func retire(src tilesource.Source) {
	if src == nil {
		return
	}
	time.AfterFunc(30*time.Second, func() { src.Close() })
}

// Load reads the records from the state database, opens remote ones and
// scans the tiles directory.
func (c *Catalog) Load(ctx context.Context) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("make tiles directory: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	recs, err := c.db.Tilesets(ctx)
	if err != nil {
		return err
	}
	entries := c.current()
	for _, rec := range recs {
		if _, ok := entries[rec.ID]; ok {
			continue
		}
		if rec.Storage == store.StorageFile {
			if _, err := os.Stat(filepath.Join(c.dir, rec.Source)); err == nil || c.shared == nil {
				// The scan below opens it, or it is missing.
				entries[rec.ID] = &Entry{Tileset: rec, Type: typeOf(rec.Source), State: StateMissing, Error: "file not found"}
				continue
			}
			entries[rec.ID] = c.openRecord(ctx, rec)
			continue
		}
		entries[rec.ID] = c.openEntry(ctx, rec, "", time.Time{}, 0)
	}
	_, err = c.scanLocked(ctx, entries)
	c.publish(entries)
	return err
}

// Rescan picks up new and changed files; records of removed files stay,
// with the state "missing". It returns every entry.
func (c *Catalog) Rescan(ctx context.Context) ([]*Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	_, err := c.scanLocked(ctx, entries)
	c.publish(entries)
	return c.List(), err
}

// Reload rescans and removes the records of files that are gone; with
// removeRemote it also removes the remote records (the remote files stay).
// It returns the ids removed.
func (c *Catalog) Reload(ctx context.Context, removeRemote bool) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	_, scanErr := c.scanLocked(ctx, entries)
	removed := []string{}
	for id, e := range entries {
		dead := e.Storage == store.StorageFile && e.State == StateMissing
		if dead || (removeRemote && e.Storage != store.StorageFile) {
			if err := c.db.DeleteTileset(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
				c.publish(entries)
				return removed, err
			}
			retire(e.Reader)
			delete(entries, id)
			removed = append(removed, id)
		}
	}
	slices.Sort(removed)
	c.publish(entries)
	return removed, scanErr
}

// scanLocked brings entries up to date with the tiles directory.
func (c *Catalog) scanLocked(ctx context.Context, entries map[string]*Entry) (changed bool, err error) {
	if c.shared != nil {
		if err := c.shared.Prepare(ctx); err != nil {
			c.log.Error("tiles directory not in line with the shared copy", "err", err)
		}
	}
	files, err := c.listFiles()
	if err != nil {
		return false, err
	}
	bySource := map[string]*Entry{}
	for _, e := range entries {
		if e.Storage == store.StorageFile {
			bySource[e.Tileset.Source] = e
		}
	}
	present := map[string]bool{}
	for _, f := range files {
		present[f.name] = true
		old, known := bySource[f.name]
		if known && old.State != StateMissing && old.modTime.Equal(f.modTime) && old.size == f.size {
			continue // unchanged
		}
		rec := store.Tileset{}
		if known {
			rec = old.Tileset
		} else {
			rec = store.Tileset{
				ID:        uuid.NewString(),
				Name:      uniqueName(entries, nameFromFile(f.name)),
				Source:    f.name,
				Storage:   store.StorageFile,
				Published: true,
			}
			if c.shared != nil {
				if err := c.shared.Put(ctx, f.name, filepath.Join(c.dir, f.name)); err != nil {
					c.log.Error("share tileset file", "file", f.name, "err", err)
					continue
				}
				if st, err := os.Stat(filepath.Join(c.dir, f.name)); err == nil {
					f.modTime = st.ModTime() // Put gives it the shared copy's time
				}
			}
			if rec, err = c.db.CreateTileset(ctx, rec); err != nil {
				c.log.Error("record tileset", "file", f.name, "err", err)
				continue
			}
		}
		e := c.openEntry(ctx, rec, filepath.Join(c.dir, f.name), f.modTime, f.size)
		if known {
			retire(old.Reader)
			c.log.Info("tileset changed", "name", rec.Name, "file", f.name, "state", e.State)
		} else {
			c.log.Info("tileset added", "name", rec.Name, "file", f.name, "state", e.State)
		}
		entries[rec.ID] = e
		changed = true
	}
	for id, e := range entries {
		// With a shared copy, a file this node does not have is read there.
		if e.Storage == store.StorageFile && !present[e.Tileset.Source] && e.State != StateMissing && c.shared == nil {
			retire(e.Reader)
			ne := *e
			ne.Reader, ne.Info, ne.State, ne.Error = nil, tilesource.Info{}, StateMissing, "file not found"
			ne.Gen = c.gen.Add(1)
			entries[id] = &ne
			c.log.Warn("tileset file gone", "name", e.Name, "file", e.Tileset.Source)
			changed = true
		}
	}
	return changed, nil
}

// openEntry opens a record's source; a failure gives an entry in the error
// state, logged, that never stops the others.
func (c *Catalog) openEntry(ctx context.Context, rec store.Tileset, path string, modTime time.Time, size int64) *Entry {
	e := &Entry{Tileset: rec, Type: typeOf(rec.Source), modTime: modTime, size: size, Gen: c.gen.Add(1)}
	src, err := c.open(ctx, rec, path)
	if err != nil && rec.Storage == store.StorageFile && c.shared != nil && errors.Is(err, fs.ErrNotExist) {
		e.State, e.Error = StateMissing, "file not found"
		return e
	}
	if err != nil {
		e.State, e.Error = StateError, err.Error()
		source := rec.Source
		if rec.Storage != store.StorageFile {
			e.Error = remoteProblem(rec.Source, err)
			source = egress.Redact(rec.Source)
			err = errors.New(scrubUserinfo(err.Error(), rec.Source))
		}
		c.log.Error("tileset unreadable", "name", rec.Name, "source", source, "err", err)
		return e
	}
	if err := tilesource.CheckTileSize(src.Info()); err != nil {
		src.Close()
		e.State, e.Error = StateError, err.Error()
		c.log.Error("tileset not served", "name", rec.Name, "err", err)
		return e
	}
	e.Reader, e.Info, e.State = src, src.Info(), StateOK
	return e
}

// remoteProblem is what the admin API says of a remote archive that cannot
// be opened: the rule that refused its address, or one message that holds
// nothing of what the remote did (not its status, its bytes, nor whether
// anything answered at all), so that the admin API cannot be used to probe
// other services. The URL is shown without credentials.
func remoteProblem(source string, err error) string {
	if f, ok := egress.Forbidden(err); ok {
		return fmt.Sprintf("%s: %s", egress.Redact(source), f.Error())
	}
	return fmt.Sprintf("could not read a PMTiles archive at %s", egress.Redact(source))
}

// scrubUserinfo removes the user information of source's URL from a
// message, for the log.
func scrubUserinfo(msg, source string) string {
	u, err := url.Parse(source)
	if err != nil || u.User == nil {
		return msg
	}
	for _, s := range []string{u.User.String(), u.User.Username()} {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return msg
}

// IsTemporary reports whether a file name in the tiles directory is one
// being written, which the catalog never lists: a hidden name (a leading
// dot, as the PMTiles writer and the pre-renderer write beside the final
// path before renaming), or one marked ".tmp" or ".part" (a ".tmp-"
// infix or suffix, a ".part" suffix) by another tool.
func IsTemporary(name string) bool { return blob.IsTemporary(name) }

type fileInfo struct {
	name    string
	modTime time.Time
	size    int64
}

// listFiles lists the tileset files directly inside the tiles directory,
// mbtiles before pmtiles and then by name, so that name clashes resolve the
// same way on every start.
func (c *Catalog) listFiles() ([]fileInfo, error) {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", c.dir, err)
	}
	var out []fileInfo
	for _, de := range des {
		name := de.Name()
		ext := strings.ToLower(filepath.Ext(name))
		if !slices.Contains(Extensions, ext) || IsTemporary(name) {
			continue
		}
		info, err := de.Info()
		if err != nil || !(info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0) {
			continue
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if info, err = os.Stat(filepath.Join(c.dir, name)); err != nil || !info.Mode().IsRegular() {
				continue
			}
		}
		out = append(out, fileInfo{name: name, modTime: info.ModTime(), size: info.Size()})
	}
	slices.SortFunc(out, func(a, b fileInfo) int {
		ea, eb := strings.ToLower(filepath.Ext(a.name)), strings.ToLower(filepath.Ext(b.name))
		if ea != eb {
			return slices.Index(Extensions, ea) - slices.Index(Extensions, eb)
		}
		return strings.Compare(a.name, b.name)
	})
	return out, nil
}

func typeOf(source string) string {
	ext := strings.ToLower(filepath.Ext(source))
	if i := strings.IndexAny(ext, "?#"); i >= 0 {
		ext = ext[:i]
	}
	if ext == ".mbtiles" {
		return "mbtiles"
	}
	return "pmtiles"
}

// nameFromFile turns a file name into a public name: the name without its
// extension, made valid.
func nameFromFile(file string) string {
	base := strings.TrimSuffix(file, filepath.Ext(file))
	var b strings.Builder
	for _, r := range base {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == '?' || r == '#' || r == '%' {
			r = '-'
		}
		b.WriteRune(r)
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "tileset"
	}
	if len(name) > MaxNameLen {
		name = name[:MaxNameLen]
		for !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	return name
}

// MaxNameLen is the longest public name, in bytes.
const MaxNameLen = 128

// ValidName checks a public name given through the admin API: 1 to 128
// bytes of letters, digits, '-', '_', '.' and spaces, not starting with a
// dot or space.
func ValidName(name string) error {
	if name == "" || len(name) > MaxNameLen || !utf8.ValidString(name) {
		return fmt.Errorf("%w: a name has 1 to %d bytes", ErrBadName, MaxNameLen)
	}
	if name[0] == '.' || name[0] == ' ' || name[len(name)-1] == ' ' {
		return fmt.Errorf("%w: %q may not start with a dot or start or end with a space", ErrBadName, name)
	}
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' || r == ' ') {
			return fmt.Errorf("%w: %q has the character %q (allowed: letters, digits, '-', '_', '.', space)", ErrBadName, name, r)
		}
	}
	return nil
}

// uniqueName returns name, or name-2, name-3... if taken.
func uniqueName(entries map[string]*Entry, name string) string {
	taken := func(n string) bool {
		for _, e := range entries {
			if e.Name == n {
				return true
			}
		}
		return false
	}
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		n := name + "-" + strconv.Itoa(i)
		if !taken(n) {
			return n
		}
	}
}

var zeroTime time.Time

// Size is the size in bytes of a file tileset's file (0 for remote ones).
func (e *Entry) Size() int64 { return e.size }
