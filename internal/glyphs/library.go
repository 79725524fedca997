package glyphs

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"
)

// Library defaults.
const (
	DefaultCacheBytes = 64 << 20 // bytes of built ranges kept in memory
	maxScanFiles      = 10000    // font files considered by a scan
)

// FontInfo describes one face of a Library.
type FontInfo struct {
	Name   string // "Family Style", the name used in font stacks
	Family string
	Style  string
	File   string // slash-separated path relative to the library folder (the first, if several)
	Face   int    // index of the face in that file (TTC/OTC collections), else 0
}

// Library serves glyph ranges from the fonts of one folder (searched
// recursively for .ttf, .otf, .ttc and .otc files). Files are read through an
// os.Root, so symbolic links that lead outside the folder are never followed.
// A Library is safe for concurrent use.
type Library struct {
	dir   string
	root  *os.Root
	log   *slog.Logger
	cache *lru
	group singleflight.Group
	sem   chan struct{} // bounds concurrent range builds

	renders atomic.Int64 // font ranges rendered, for tests

	mu    sync.RWMutex
	gen   uint64
	faces map[string]*face // by name
	lower map[string]*face // by lower-case name
	infos []FontInfo       // sorted by name
}

// face is one named font of the library: one face of a file, or several
// faces of the same name in different files (tried in path order for each
// code point). Files are read on first use.
type face struct {
	info    FontInfo
	members []member
}

type member struct {
	file  *fontFile
	index int
}

// fontFile is one font file, parsed on first use and then kept.
type fontFile struct {
	path  string
	mu    sync.Mutex
	faces []*Font
}

// Option configures a Library.
type Option func(*Library)

// WithCacheBytes sets the byte budget of the range cache (DefaultCacheBytes
// by default).
func WithCacheBytes(n int64) Option {
	return func(l *Library) { l.cache = newLRU(max(n, 0)) }
}

// WithLogger sets the logger (slog.Default() by default).
func WithLogger(log *slog.Logger) Option {
	return func(l *Library) {
		if log != nil {
			l.log = log
		}
	}
}

// Open scans dir for fonts and returns a Library serving them.
func Open(ctx context.Context, dir string, opts ...Option) (*Library, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open fonts folder %s: %w", dir, err)
	}
	l := &Library{
		dir:   dir,
		root:  root,
		log:   slog.Default(),
		cache: newLRU(DefaultCacheBytes),
		sem:   make(chan struct{}, max(1, runtime.GOMAXPROCS(0))),
	}
	for _, o := range opts {
		o(l)
	}
	if err := l.Rescan(ctx); err != nil {
		root.Close()
		return nil, err
	}
	return l, nil
}

// Close releases the library's folder handle.
func (l *Library) Close() error { return l.root.Close() }

// Rescan reads the folder again, replacing the list of fonts and emptying the
// range cache. Files that are not fonts are skipped with a warning. Faces of
// the same name in several files become one font whose code points come from
// the first file (in path order) that has them. Folders whose name starts
// with a dot are skipped, and symbolic links to folders are not followed.
func (l *Library) Rescan(ctx context.Context) error {
	var paths []string
	err := fs.WalkDir(l.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			l.log.WarnContext(ctx, "glyphs: skipping unreadable path", "dir", l.dir, "path", p, "err", err)
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		switch strings.ToLower(path.Ext(p)) {
		case ".ttf", ".otf", ".ttc", ".otc":
		default:
			return nil
		}
		if len(paths) >= maxScanFiles {
			return fmt.Errorf("more than %d font files", maxScanFiles)
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan fonts folder %s: %w", l.dir, err)
	}
	slices.Sort(paths)

	faces := map[string]*face{}
	lower := map[string]*face{}
	var infos []FontInfo
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan fonts folder %s: %w", l.dir, err)
		}
		ff := &fontFile{path: p}
		parsed, err := l.readFont(p)
		if err != nil {
			l.log.WarnContext(ctx, "glyphs: skipping font file", "dir", l.dir, "file", p, "err", err)
			continue
		}
		ff.faces = parsed
		for i, f := range parsed {
			if prev, ok := faces[f.Name]; ok {
				l.log.InfoContext(ctx, "glyphs: font name in several files, merging them glyph by glyph", "name", f.Name, "first", prev.info.File, "also", p)
				prev.members = append(prev.members, member{file: ff, index: i})
				continue
			}
			fc := &face{info: FontInfo{Name: f.Name, Family: f.Family, Style: f.Style, File: p, Face: i}, members: []member{{file: ff, index: i}}}
			faces[f.Name] = fc
			if _, ok := lower[strings.ToLower(f.Name)]; !ok {
				lower[strings.ToLower(f.Name)] = fc
			}
			infos = append(infos, fc.info)
		}
		// Drop the parsed faces: the file is read again when a range needs
		// it, so a large folder costs no memory until its fonts are used.
		ff.faces = nil
	}
	slices.SortFunc(infos, func(a, b FontInfo) int { return strings.Compare(a.Name, b.Name) })

	l.mu.Lock()
	l.faces, l.lower, l.infos = faces, lower, infos
	l.gen++
	l.mu.Unlock()
	l.cache.purge()
	l.log.InfoContext(ctx, "glyphs: scanned fonts", "dir", l.dir, "files", len(paths), "fonts", len(infos))
	return nil
}

// readFont reads and parses one font file through the root.
func (l *Library) readFont(p string) ([]*Font, error) {
	f, err := l.root.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if st.Size() > maxFontBytes {
		return nil, fmt.Errorf("%s: %d bytes is more than the limit of %d", p, st.Size(), maxFontBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFontBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	faces, err := ParseFont(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	return faces, nil
}

// font returns the parsed face of a member, reading its file on first use.
func (l *Library) font(name string, m member) (*Font, error) {
	ff := m.file
	ff.mu.Lock()
	defer ff.mu.Unlock()
	if ff.faces == nil {
		faces, err := l.readFont(ff.path)
		if err != nil {
			return nil, err
		}
		ff.faces = faces
	}
	if m.index >= len(ff.faces) || ff.faces[m.index].Name != name {
		return nil, fmt.Errorf("font file %s changed since the last scan", ff.path)
	}
	return ff.faces[m.index], nil
}

// Generation changes each time the fonts are scanned again: caches of
// things drawn with the fonts key on it.
func (l *Library) Generation() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.gen
}

// Dir returns the library's folder.
func (l *Library) Dir() string { return l.dir }

// Names returns the names of the library's fonts, sorted.
func (l *Library) Names() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	names := make([]string, len(l.infos))
	for i, fi := range l.infos {
		names[i] = fi.Name
	}
	return names
}

// Fonts describes the library's fonts, sorted by name.
func (l *Library) Fonts() []FontInfo {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return slices.Clone(l.infos)
}

// Has reports whether the library has a font of that name (compared exactly,
// then ignoring case).
func (l *Library) Has(name string) bool {
	_, ok := l.lookup(name)
	return ok
}

func (l *Library) lookup(name string) (*face, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if fc, ok := l.faces[name]; ok {
		return fc, true
	}
	fc, ok := l.lower[strings.ToLower(name)]
	return fc, ok
}

// Range returns the glyph PBF of the 256 code points from start for a font
// stack: each code point comes from the first font of the stack that has it,
// and the PBF's fontstack name is the names of the stack's known fonts joined
// by commas. Fonts the library lacks are skipped; when it has none of them
// the error wraps ErrUnknownFonts. A start that is not a multiple of 256 in
// 0..65280 gives ErrBadRange. Built ranges are cached, and identical
// concurrent requests build once. The returned slice is shared: do not
// modify it.
func (l *Library) Range(ctx context.Context, fontstack []string, start int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("glyph range: %w", err)
	}
	if err := checkStart(start); err != nil {
		return nil, err
	}
	if len(fontstack) > MaxStackFonts {
		return nil, fmt.Errorf("%w: %d fonts is more than %d", ErrBadFontstack, len(fontstack), MaxStackFonts)
	}
	var stack []*face
	for _, name := range fontstack {
		if fc, ok := l.lookup(name); ok && !slices.Contains(stack, fc) {
			stack = append(stack, fc)
		}
	}
	if len(stack) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrUnknownFonts, strings.Join(fontstack, ","))
	}
	names := make([]string, len(stack))
	for i, fc := range stack {
		names[i] = fc.info.Name
	}
	l.mu.RLock()
	gen := l.gen
	l.mu.RUnlock()
	key := "s\x00" + strconv.FormatUint(gen, 10) + "\x00" + strconv.Itoa(start) + "\x00" + strings.Join(names, "\x00")
	if v, ok := l.cache.get(key); ok {
		return v.([]byte), nil
	}
	ch := l.group.DoChan(key, func() (any, error) {
		// The build goes on if the caller that started it goes away, so
		// that the callers sharing it still get the range.
		bctx := context.WithoutCancel(ctx)
		pbf, err := l.build(bctx, stack, names, gen, start)
		if err != nil {
			return nil, err
		}
		l.cache.add(key, pbf, int64(len(pbf)))
		return pbf, nil
	})
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("glyph range %s %s: %w", strings.Join(names, ","), rangeName(start), ctx.Err())
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.([]byte), nil
	}
}

// build merges the stack's ranges glyph by glyph and encodes the result.
func (l *Library) build(ctx context.Context, stack []*face, names []string, gen uint64, start int) ([]byte, error) {
	ranges := make([][]Glyph, len(stack))
	for i, fc := range stack {
		glyphs, err := l.fontRange(ctx, fc, gen, start)
		if err != nil {
			return nil, err
		}
		ranges[i] = glyphs
	}
	return EncodeRange(Fontstack{Name: strings.Join(names, ","), Range: rangeName(start), Glyphs: mergeGlyphs(ranges)}), nil
}

// mergeGlyphs merges ranges sorted by code point, keeping for each code point
// the glyph of the first range that has it.
func mergeGlyphs(ranges [][]Glyph) []Glyph {
	if len(ranges) == 1 {
		return ranges[0]
	}
	var merged []Glyph
	have := map[uint32]bool{}
	for _, glyphs := range ranges {
		for _, g := range glyphs {
			if !have[g.ID] {
				have[g.ID] = true
				merged = append(merged, g)
			}
		}
	}
	slices.SortFunc(merged, func(a, b Glyph) int { return int(a.ID) - int(b.ID) })
	return merged
}

// fontRange returns one font's glyphs of a range, from the cache or rendered.
func (l *Library) fontRange(ctx context.Context, fc *face, gen uint64, start int) ([]Glyph, error) {
	key := "f\x00" + strconv.FormatUint(gen, 10) + "\x00" + strconv.Itoa(start) + "\x00" + fc.info.Name
	if v, ok := l.cache.get(key); ok {
		return v.([]Glyph), nil
	}
	v, err, _ := l.group.Do(key, func() (any, error) {
		ranges := make([][]Glyph, len(fc.members))
		for i, m := range fc.members {
			f, err := l.font(fc.info.Name, m)
			if err != nil {
				return nil, fmt.Errorf("glyph range %s %s: %w", fc.info.Name, rangeName(start), err)
			}
			select {
			case l.sem <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			l.renders.Add(1)
			ranges[i], err = f.RenderRange(ctx, start)
			<-l.sem
			if err != nil {
				return nil, err
			}
		}
		glyphs := mergeGlyphs(ranges)
		size := int64(0)
		for _, g := range glyphs {
			size += int64(len(g.Bitmap)) + 64
		}
		l.cache.add(key, glyphs, size)
		return glyphs, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]Glyph), nil
}

// CacheStats returns the number of cached entries (stack ranges and font
// ranges) and the bytes they account for.
func (l *Library) CacheStats() (entries int, bytes int64) { return l.cache.stats() }
