package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/store"
)

// Sync brings the catalog in line with the records of the state database
// after another node sharing it changed them: a record created there is
// added (a remote archive is opened, a file record is opened when its file
// is in this node's tiles directory and is "missing" otherwise), a rename
// or a change of publication, title, description or attribution is
// applied, a record whose source changed is reopened, and a record deleted
// there is dropped. The tiles directory is not scanned: a file whose record
// another node deleted is not recorded again.
func (c *Catalog) Sync(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	recs, err := c.db.Tilesets(ctx)
	if err != nil {
		return err
	}
	entries := c.current()
	seen := make(map[string]bool, len(recs))
	changed := false
	for _, rec := range recs {
		seen[rec.ID] = true
		if c.applyRecord(ctx, entries, rec.ID, rec, false) {
			changed = true
		}
	}
	for id := range entries {
		if !seen[id] && c.applyRecord(ctx, entries, id, store.Tileset{}, true) {
			changed = true
		}
	}
	if changed {
		c.publish(entries)
	}
	return nil
}

// SyncOne applies another node's change of the record with the id: like
// Sync, for one record.
func (c *Catalog) SyncOne(ctx context.Context, id string) error {
	rec, err := c.db.Tileset(ctx, id)
	gone := errors.Is(err, store.ErrNotFound)
	if err != nil && !gone {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.current()
	if c.applyRecord(ctx, entries, id, rec, gone) {
		c.publish(entries)
	}
	return nil
}

// applyRecord brings the entry id in line with its record (gone: deleted)
// and tells whether it changed.
func (c *Catalog) applyRecord(ctx context.Context, entries map[string]*Entry, id string, rec store.Tileset, gone bool) bool {
	e, known := entries[id]
	switch {
	case gone && !known:
		return false
	case gone:
		retire(e.Reader)
		delete(entries, id)
	case known && sameRecord(e.Tileset, rec):
		return false
	case known && c.shared != nil && rec.Storage == store.StorageFile && e.Tileset.Source == rec.Source && e.Tileset.Changed != rec.Changed:
		// The file may have been replaced by another node: this node's
		// copy is brought in line, and the tileset reopened.
		if err := c.shared.Refresh(ctx, rec.Source); err != nil {
			c.log.Error("refresh the shared tileset file", "file", rec.Source, "err", err)
		}
		retire(e.Reader)
		entries[id] = c.openRecord(ctx, rec)
	case known && e.Tileset.Source == rec.Source && e.Storage == rec.Storage:
		ne := *e
		ne.Tileset = rec
		entries[id] = &ne
	default:
		if known {
			retire(e.Reader)
		}
		entries[id] = c.openRecord(ctx, rec)
	}
	return true
}

// openRecord opens a record made or moved by another node: a remote
// archive, or a file of this node's tiles directory ("missing" when this
// node does not have it).
func (c *Catalog) openRecord(ctx context.Context, rec store.Tileset) *Entry {
	if rec.Storage != store.StorageFile {
		return c.openEntry(ctx, rec, "", zeroTime, 0)
	}
	p, err := c.filePath(rec.Source)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(p); err == nil && st.Mode().IsRegular() {
			return c.openEntry(ctx, rec, filepath.Join(c.dir, rec.Source), st.ModTime(), st.Size())
		}
		if c.shared != nil {
			return c.openEntry(ctx, rec, p, zeroTime, 0)
		}
	}
	return &Entry{Tileset: rec, Type: typeOf(rec.Source), State: StateMissing, Error: "file not found", Gen: c.gen.Add(1)}
}

// sameRecord tells whether two records hold the same values.
func sameRecord(a, b store.Tileset) bool {
	aa, ba := a.Attribution, b.Attribution
	a.Attribution, b.Attribution = nil, nil
	if a != b || (aa == nil) != (ba == nil) {
		return false
	}
	return aa == nil || *aa == *ba
}

// Sync brings the maps in line with the records of the state database
// after another node changed them (publication, format, quality; a map
// deleted there is dropped). Styles are files of each node's maps
// directory: they are not re-read, and a folder whose record another node
// deleted is not recorded again.
func (ms *Maps) Sync(ctx context.Context) error {
	recs, err := ms.db.Maps(ctx)
	if err != nil {
		return err
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	byID := ms.current()
	byRec := make(map[string]store.Map, len(recs))
	for _, r := range recs {
		byRec[r.ID] = r
	}
	changed := false
	for id, m := range byID {
		r, ok := byRec[id]
		switch {
		case !ok:
			delete(byID, id)
			changed = true
		case r != m.Map:
			nm := *m
			nm.Map = r
			byID[id] = &nm
			changed = true
		}
	}
	if changed {
		ms.publish(byID)
	}
	return nil
}
