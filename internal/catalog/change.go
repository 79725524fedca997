package catalog

import (
	"context"
	"errors"
	"fmt"
	"github.com/tesseramaps/tessera/internal/egress"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/store"
)

// Change is a metadata change; nil fields stay as they are.
type Change struct {
	Name      *string
	Title     *string
	Published *bool
	// The account API's fields: a description and an attribution.
	Description *string
	Attribution *string
}

// Update applies a change to the tileset with the admin id.
func (c *Catalog) Update(ctx context.Context, id string, ch Change) (*Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	e, ok := entries[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	rec := e.Tileset
	if ch.Name != nil && *ch.Name != rec.Name {
		if err := ValidName(*ch.Name); err != nil {
			return nil, err
		}
		for _, o := range entries {
			if o.Name == *ch.Name {
				return nil, fmt.Errorf("%w: %q", ErrNameTaken, *ch.Name)
			}
		}
		rec.Name = *ch.Name
	}
	if ch.Title != nil {
		rec.Title = *ch.Title
	}
	if ch.Published != nil {
		rec.Published = *ch.Published
	}
	if ch.Description != nil {
		rec.Description = *ch.Description
	}
	if ch.Attribution != nil && (rec.Attribution == nil || *rec.Attribution != *ch.Attribution) {
		rec.Attribution = ch.Attribution
	}
	if rec == e.Tileset {
		return e, nil // nothing changes: idempotent
	}
	rec, err := c.db.UpdateTileset(ctx, rec)
	if errors.Is(err, store.ErrConflict) {
		return nil, fmt.Errorf("%w: %q", ErrNameTaken, rec.Name)
	}
	if err != nil {
		return nil, err
	}
	ne := *e
	ne.Tileset = rec
	entries[id] = &ne
	c.publish(entries)
	return &ne, nil
}

// SetPublished publishes or unpublishes a tileset (idempotent).
func (c *Catalog) SetPublished(ctx context.Context, id string, published bool) (*Entry, error) {
	return c.Update(ctx, id, Change{Published: &published})
}

// Delete unpublishes the tileset, then removes its file (for a file
// record) and its record. It returns the ids removed.
func (c *Catalog) Delete(ctx context.Context, id string) ([]string, error) {
	if _, err := c.SetPublished(ctx, id, false); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	e, ok := entries[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if e.Storage == store.StorageFile {
		p, err := c.filePath(e.Tileset.Source)
		if err != nil {
			return nil, err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove %s: %w", e.Tileset.Source, err)
		}
		if c.shared != nil {
			if err := c.shared.Remove(ctx, e.Tileset.Source); err != nil {
				return nil, fmt.Errorf("remove the shared %s: %w", e.Tileset.Source, err)
			}
		}
	}
	if err := c.db.DeleteTileset(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	retire(e.Reader)
	delete(entries, id)
	c.publish(entries)
	c.log.Info("tileset deleted", "id", id, "name", e.Name)
	return []string{id}, nil
}

// filePath joins a file record's name to the tiles directory, refusing
// anything that would leave it.
func (c *Catalog) filePath(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." || !filepath.IsLocal(name) {
		return "", fmt.Errorf("file name %q is not a plain name inside the tiles directory", name)
	}
	return filepath.Join(c.dir, name), nil
}

// AddRemote registers a remote PMTiles archive read over HTTP range
// requests (storage "http") or from S3 (storage "s3").
func (c *Catalog) AddRemote(ctx context.Context, storage, rawURL string) (*Entry, error) {
	if storage != store.StorageHTTP && storage != store.StorageS3 {
		return nil, fmt.Errorf("storage %q is not http or s3", storage)
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("url %s is not an absolute URL", egress.Redact(rawURL))
	}
	switch {
	case storage == store.StorageHTTP && u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("url %s: http storage needs an http or https URL", egress.Redact(rawURL))
	case storage == store.StorageS3 && u.Scheme != "s3" && u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("url %s: s3 storage needs an s3:// or http(s) URL", egress.Redact(rawURL))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	for _, e := range entries {
		if e.Storage != store.StorageFile && e.Tileset.Source == rawURL {
			return nil, fmt.Errorf("%w: %s is already registered as %q", ErrNameTaken, egress.Redact(rawURL), e.Name)
		}
	}
	base := path.Base(u.Path)
	if base == "/" || base == "." || base == "" {
		base = u.Host
	}
	rec := store.Tileset{
		ID:        uuid.NewString(),
		Name:      uniqueName(entries, nameFromFile(base)),
		Source:    rawURL,
		Storage:   storage,
		Published: true,
	}
	// Open before recording, so that an unreachable or invalid archive is
	// refused rather than stored.
	e := c.openEntry(ctx, rec, "", zeroTime, 0)
	if e.State != StateOK {
		return nil, errors.New(e.Error) // already free of remote bytes and credentials
	}
	if e.Type != "pmtiles" {
		retire(e.Reader)
		return nil, fmt.Errorf("remote tilesets must be PMTiles archives")
	}
	if e.Tileset, err = c.db.CreateTileset(ctx, rec); err != nil {
		retire(e.Reader)
		return nil, err
	}
	entries[rec.ID] = e
	c.publish(entries)
	c.log.Info("remote tileset added", "name", rec.Name, "url", egress.Redact(rawURL))
	return e, nil
}

// AddFile moves a finished file (on the same file system as the tiles
// directory) into it as NAME.EXT, with NAME made unique among the tilesets
// and the files present, and registers it with the given id. The move is a
// rename, so the tileset appears whole or not at all.
func (c *Catalog) AddFile(ctx context.Context, tmpPath, name, ext, id string) (*Entry, error) {
	if ext != ".mbtiles" && ext != ".pmtiles" {
		return nil, fmt.Errorf("extension %q is not .mbtiles or .pmtiles", ext)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	if _, ok := entries[id]; ok {
		return nil, fmt.Errorf("%w: id %s", ErrNameTaken, id)
	}
	base := nameFromFile(name + ".x")
	final := ""
	for i := 1; ; i++ {
		n := base
		if i > 1 {
			n = fmt.Sprintf("%s-%d", base, i)
		}
		taken := false
		for _, e := range entries {
			if e.Name == n {
				taken = true
				break
			}
		}
		if _, err := os.Lstat(filepath.Join(c.dir, n+".mbtiles")); err == nil {
			taken = true
		}
		if _, err := os.Lstat(filepath.Join(c.dir, n+".pmtiles")); err == nil {
			taken = true
		}
		if !taken {
			final = n
			break
		}
	}
	file := final + ext
	dest := filepath.Join(c.dir, file)
	rec := store.Tileset{ID: id, Name: final, Source: file, Storage: store.StorageFile, Published: true}
	if err := c.moveChecked(ctx, rec, tmpPath, dest); err != nil {
		return nil, err
	}
	rec, err := c.db.CreateTileset(ctx, rec)
	if err != nil {
		os.Remove(dest)
		return nil, err
	}
	st, err := os.Stat(dest)
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", dest, err)
	}
	e := c.openEntry(ctx, rec, dest, st.ModTime(), st.Size())
	entries[id] = e
	c.publish(entries)
	c.log.Info("tileset ingested", "name", final, "file", file, "state", e.State)
	return e, nil
}

// ReplaceFile puts a finished file (on the same file system as the tiles
// directory) in place of the file of the tileset id, keeping its id, name
// and publication. With the same extension the new file is renamed over
// the old one, so readers see the old tileset or the new one, never a mix;
// with another extension it goes beside it as NAME.EXT, the record follows
// it, and the old file is removed.
func (c *Catalog) ReplaceFile(ctx context.Context, id, tmpPath, ext string) (*Entry, error) {
	if ext != ".mbtiles" && ext != ".pmtiles" {
		return nil, fmt.Errorf("extension %q is not .mbtiles or .pmtiles", ext)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	old, ok := entries[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if old.Storage != store.StorageFile {
		return nil, fmt.Errorf("tileset %s is a remote archive: only file tilesets can be replaced", id)
	}
	rec := old.Tileset
	rec.Source = strings.TrimSuffix(rec.Source, filepath.Ext(rec.Source)) + ext
	for _, e := range entries {
		if e.ID != id && e.Storage == store.StorageFile && e.Tileset.Source == rec.Source {
			return nil, fmt.Errorf("%w: the file %s belongs to the tileset %q", ErrNameTaken, rec.Source, e.Name)
		}
	}
	dest, err := c.filePath(rec.Source)
	if err != nil {
		return nil, err
	}
	oldPath, err := c.filePath(old.Tileset.Source)
	if err != nil {
		return nil, err
	}
	if err := c.moveChecked(ctx, rec, tmpPath, dest); err != nil {
		return nil, err
	}
	// With a shared copy the other nodes hear of a replacement by the
	// same name too (the record's change time moves), and reopen it.
	if rec.Source != old.Tileset.Source || c.shared != nil {
		if rec, err = c.db.UpdateTilesetSource(ctx, rec.ID, rec.Source); err != nil {
			return nil, err
		}
	}
	if rec.Source != old.Tileset.Source {
		if err := os.Remove(oldPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.log.Warn("remove the replaced tileset file", "file", oldPath, "err", err)
		}
		if c.shared != nil {
			if err := c.shared.Remove(ctx, old.Tileset.Source); err != nil {
				c.log.Warn("remove the replaced shared tileset file", "file", old.Tileset.Source, "err", err)
			}
		}
	}
	st, err := os.Stat(dest)
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", dest, err)
	}
	e := c.openEntry(ctx, rec, dest, st.ModTime(), st.Size())
	retire(old.Reader)
	entries[id] = e
	c.publish(entries)
	c.log.Info("tileset replaced", "name", rec.Name, "file", rec.Source, "state", e.State)
	return e, nil
}

// moveChecked checks that the file at tmpPath opens as the record's
// tileset before it moves to dest (one rename).
func (c *Catalog) moveChecked(ctx context.Context, rec store.Tileset, tmpPath, dest string) error {
	probe := c.openEntry(ctx, rec, tmpPath, zeroTime, 0)
	if probe.State != StateOK {
		return fmt.Errorf("%s", probe.Error)
	}
	probe.Reader.Close()
	if c.shared != nil {
		// Shared before the record is committed and announced, so the
		// other nodes find the file when they hear of it.
		if err := c.shared.Put(ctx, filepath.Base(dest), tmpPath); err != nil {
			return err
		}
	}
	if err := os.Rename(tmpPath, dest); err != nil {
		return fmt.Errorf("move the tileset into place: %w", err)
	}
	return nil
}
