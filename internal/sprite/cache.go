package sprite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Cache keeps built sheets per icon directory and options. A sheet is rebuilt when the
// directory's fingerprint (relative paths, sizes and modification times of its icon files)
// changes. Files are read through os.Root, so symbolic links or ".." cannot escape the
// directory. Safe for concurrent use; concurrent requests for the same sheet build it once.
type Cache struct {
	// RecheckAfter, when positive, trusts a built sheet for that long before looking at the
	// directory again. Zero checks the directory on every Get.
	RecheckAfter time.Duration
	// MaxEntries bounds the number of sheets kept (default 256); the least recently used
	// sheet is dropped first.
	MaxEntries int

	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	clock   int64
	builds  int64 // number of builds, for tests and metrics
}

type cacheKey struct {
	dir   string
	ratio int
	sdf   bool
}

type cacheEntry struct {
	mu          sync.Mutex
	fingerprint string
	checked     time.Time
	sheet       *Sheet
	used        int64
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

// Builds reports how many sheets the cache has built so far.
func (c *Cache) Builds() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.builds
}

// Get returns the sheet of the icons in dir for opts, building it when needed. A missing
// directory yields an error wrapping fs.ErrNotExist.
func (c *Cache) Get(ctx context.Context, dir string, opts Options) (*Sheet, error) {
	opts = opts.withDefaults()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sprite: %s: %w", dir, err)
	}
	key := cacheKey{dir: abs, ratio: opts.PixelRatio, sdf: opts.SDF}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[cacheKey]*cacheEntry{}
	}
	c.clock++
	e := c.entries[key]
	if e == nil {
		e = &cacheEntry{used: c.clock}
		c.entries[key] = e
		c.evictLocked()
	}
	e.used = c.clock
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sheet != nil && c.RecheckAfter > 0 && time.Since(e.checked) < c.RecheckAfter {
		return e.sheet, nil
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("sprite: open %s: %w", dir, err)
	}
	defer root.Close()
	fsys := root.FS()
	fp, err := Fingerprint(ctx, fsys)
	if err != nil {
		return nil, fmt.Errorf("sprite: scan %s: %w", dir, err)
	}
	if e.sheet != nil && fp == e.fingerprint {
		e.checked = time.Now()
		return e.sheet, nil
	}
	sheet, err := BuildFS(ctx, fsys, opts)
	if err != nil {
		return nil, fmt.Errorf("sprite: build %s: %w", dir, err)
	}
	e.sheet, e.fingerprint, e.checked = sheet, fp, time.Now()
	c.mu.Lock()
	c.builds++
	c.mu.Unlock()
	return sheet, nil
}

// Invalidate forgets every sheet built from dir.
func (c *Cache) Invalidate(dir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if k.dir == abs {
			delete(c.entries, k)
		}
	}
}

func (c *Cache) evictLocked() {
	limit := c.MaxEntries
	if limit <= 0 {
		limit = 256
	}
	for len(c.entries) > limit {
		var oldest cacheKey
		first := true
		var min int64
		for k, e := range c.entries {
			if first || e.used < min {
				oldest, min, first = k, e.used, false
			}
		}
		delete(c.entries, oldest)
	}
}

// Fingerprint summarises the icon files of fsys (paths, sizes, modification times), the
// same files LoadIcons reads.
func Fingerprint(ctx context.Context, fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			fmt.Fprintf(h, "error %s\n", p)
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		base := path.Base(p)
		if p != "." && strings.HasPrefix(base, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		ext := strings.ToLower(path.Ext(base))
		if ext != ".svg" && ext != ".png" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while scanning
			}
			return err
		}
		fmt.Fprintf(h, "%q %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
