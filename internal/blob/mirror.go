package blob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Mirror keeps folders of a local directory (the data directory) as a
// cache of a Files store that several nodes share: the store holds the
// files, each node's directory a copy that can be deleted at any time.
// Keys are the files' paths relative to the directory.
//
// A nil *Mirror is a node without shared storage: every method does
// nothing, so callers need not ask.
//
// Which copy is which version: the mirror remembers, in a hidden file of
// the directory (VersionsFile), the store's ETag of each file it copied
// and the size and modification time the local copy had then. A local
// file unchanged since is that version: it is the same as the object when
// the ETags are, and older otherwise (another node replaced it). A file
// the mirror does not know, or changed here since, is compared by size
// and modification time, the newer side winning.
type Mirror struct {
	files Files
	dir   string
	log   *slog.Logger

	mu       sync.Mutex
	versions map[string]localVersion
	// copies is how many files Sync copies at once (syncCopies).
	copies int
}

// VersionsFile is the mirror's record of the versions it copied, in the
// directory.
const VersionsFile = ".shared-versions.json"

// localVersion is the version of a local copy when it was copied.
type localVersion struct {
	ETag    string `json:"etag"`
	Size    int64  `json:"size"`
	ModNano int64  `json:"mod"`
}

// NewMirror mirrors dir into files.
func NewMirror(files Files, dir string, log *slog.Logger) *Mirror {
	if log == nil {
		log = slog.Default()
	}
	m := &Mirror{files: files, dir: dir, log: log, versions: map[string]localVersion{}, copies: syncCopies}
	if b, err := os.ReadFile(filepath.Join(dir, VersionsFile)); err == nil {
		var rec versionsRecord
		switch err := json.Unmarshal(b, &rec); {
		case err != nil:
			log.Warn("shared storage: the record of versions is unreadable; comparing by time", "err", err)
		case rec.Store != files.Location():
			// Copies of another store say nothing of this one (and must
			// not be taken for files deleted from it).
			log.Info("shared storage: the data directory was a copy of another store; comparing by time", "was", rec.Store)
		case rec.Files != nil:
			m.versions = rec.Files
		}
	}
	return m
}

// versionsRecord is the content of VersionsFile.
type versionsRecord struct {
	// Store is the Location of the store the files were copied with.
	Store string                  `json:"store"`
	Files map[string]localVersion `json:"files"`
}

// remember records that the local file p (as it is now) is the object's
// version etag ("": forget rel); save writes the record down.
func (m *Mirror) remember(rel, p, etag string) {
	info, err := os.Stat(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil || etag == "" {
		delete(m.versions, rel)
	} else {
		m.versions[rel] = localVersion{ETag: etag, Size: info.Size(), ModNano: info.ModTime().UnixNano()}
	}
}

// save writes the record of versions to VersionsFile.
func (m *Mirror) save() {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := json.Marshal(versionsRecord{Store: m.files.Location(), Files: m.versions})
	if err != nil {
		return
	}
	tmp := filepath.Join(m.dir, fmt.Sprintf(".%s.tmp-%d", VersionsFile, time.Now().UnixNano()))
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return // the directory was deleted: the cache is gone, the record with it
	}
	if err := os.Rename(tmp, filepath.Join(m.dir, VersionsFile)); err != nil {
		os.Remove(tmp)
	}
}

// Which way a file is copied.
const (
	keep = iota
	upload
	download
	// drop: the local copy is of an object deleted from the store since.
	drop
)

// decide says which way the file rel goes, given the local file (info, nil
// when absent) and the object (nil when absent).
func (m *Mirror) decide(rel string, info fs.FileInfo, o *Object) int {
	switch {
	case info == nil && o == nil:
		return keep
	case info == nil:
		return download
	}
	unchanged := m.known(rel, info)
	m.mu.Lock()
	v := m.versions[rel]
	m.mu.Unlock()
	if o == nil {
		if unchanged {
			return drop // copied from or to the store, deleted there since
		}
		return upload
	}
	if unchanged {
		if v.ETag == o.ETag {
			return keep
		}
		return download // unchanged here, replaced in the store
	}
	switch {
	case o.Size == info.Size() && sameTime(o.Modified, info.ModTime()):
		return keep
	case info.ModTime().Sub(o.Modified) >= time.Second:
		// Newer here by more than the store's clock resolution (S3
		// keeps whole seconds): a copy written here since.
		return upload
	}
	// Older, or within a second of the store's copy, which is then taken:
	// a file written here at 15.1 s and replaced in the store at 15.9 s
	// shows the store's time as 15 s.
	return download
}

// Dir returns the mirrored directory.
func (m *Mirror) Dir() string { return m.dir }

// Files returns the store behind the mirror (nil for a nil mirror).
func (m *Mirror) Files() Files {
	if m == nil {
		return nil
	}
	return m.files
}

// sameTime: S3 keeps modification times to the second.
func sameTime(a, b time.Time) bool {
	d := a.Sub(b)
	return d < time.Second && d > -time.Second
}

// SyncOptions say which way Sync copies.
type SyncOptions struct {
	// UploadOnly uploads the local files the store lacks (or holds in an
	// older version) and downloads nothing.
	UploadOnly bool
}

// Sync brings the folder rel (or the single file rel) and the store in
// line: a file only the store has is downloaded; one only the directory
// has is uploaded, unless it is a copy the store had and deleted since
// (it is then removed here: the directory is a cache); one both have in
// different versions is copied from the newer side (see Mirror). It
// returns the numbers of files uploaded, and downloaded or removed here.
func (m *Mirror) Sync(ctx context.Context, rel string, opts SyncOptions) (up, down int, err error) {
	if m == nil {
		return 0, 0, nil
	}
	objs, err := m.files.List(ctx, rel)
	if err != nil {
		return 0, 0, err
	}
	remote := map[string]Object{}
	for _, o := range objs {
		if o.Key == rel || strings.HasPrefix(o.Key, strings.TrimSuffix(rel, "/")+"/") {
			remote[o.Key] = o
		}
	}
	local := map[string]fs.FileInfo{}
	root := filepath.Join(m.dir, filepath.FromSlash(rel))
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() || IsTemporary(d.Name()) {
			return nil
		}
		info, err := os.Stat(p) // follows links: the target is what is shared
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		r, err := filepath.Rel(m.dir, p)
		if err != nil {
			return err
		}
		local[filepath.ToSlash(r)] = info
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("mirror %s: %w", rel, err)
	}
	defer m.save()
	// The copies run a few at a time (a start may copy thousands of
	// small files: glyph ranges, icons).
	var mu sync.Mutex
	var errs []error
	count := func(n *int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
		} else {
			*n++
		}
	}
	g := new(errgroup.Group)
	g.SetLimit(m.copies)
	for key, info := range local {
		var o *Object
		if r, ok := remote[key]; ok {
			o = &r
		}
		switch m.decide(key, info, o) {
		case upload:
			g.Go(func() error { count(&up, m.push(ctx, key, filepath.Join(m.dir, filepath.FromSlash(key)))); return nil })
		case drop:
			p := filepath.Join(m.dir, filepath.FromSlash(key))
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
			m.remember(key, "", "")
			// Folders left empty go too (a deleted map's icons/).
			for d := filepath.Dir(p); d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
			}
			count(&down, nil)
		}
	}
	if !opts.UploadOnly {
		for key, o := range remote {
			var info fs.FileInfo
			if l, ok := local[key]; ok {
				info = l
			}
			if m.decide(key, info, &o) != download {
				continue
			}
			g.Go(func() error { count(&down, m.fetch(ctx, key, o)); return nil })
		}
	}
	g.Wait()
	if up+down > 0 {
		m.log.Info("shared files synced", "path", rel, "uploaded", up, "downloaded", down)
	}
	return up, down, errors.Join(errs...)
}

// IsTemporary reports whether a file name is one being written, which a
// mirror never shares (nor the catalog lists): a hidden name (a leading
// dot), or one marked ".tmp" or ".part" (a ".tmp-" infix or suffix, a
// ".part" suffix).
func IsTemporary(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(name, ".") || strings.Contains(lower, ".tmp-") ||
		strings.HasSuffix(lower, ".tmp") || strings.HasSuffix(lower, ".part")
}

// Push uploads the local file rel to the store and gives the local copy
// the object's modification time, so that both are seen as one version.
func (m *Mirror) Push(ctx context.Context, rel string) error {
	if m == nil {
		return nil
	}
	return m.PushFile(ctx, rel, filepath.Join(m.dir, filepath.FromSlash(rel)))
}

// PushFile uploads the file at path (inside the directory or not) as the
// object rel.
//
// A file this mirror copied with the store as rel and unchanged since is
// not sent again (a sync uploaded it just before).
func (m *Mirror) PushFile(ctx context.Context, rel, path string) error {
	if m == nil {
		return nil
	}
	if info, err := os.Stat(path); err == nil && m.known(rel, info) {
		return nil
	}
	defer m.save()
	return m.push(ctx, rel, path)
}

// known tells whether the local file (as info says) is the copy of rel
// the record of versions holds, unchanged since.
func (m *Mirror) known(rel string, info fs.FileInfo) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.versions[rel]
	return ok && v.Size == info.Size() && v.ModNano == info.ModTime().UnixNano()
}

// push uploads without saving the record of versions.
func (m *Mirror) push(ctx context.Context, rel, path string) error {
	o, err := m.files.Upload(ctx, rel, path)
	if err != nil {
		return fmt.Errorf("share %s: %w", rel, err)
	}
	_ = os.Chtimes(path, o.Modified, o.Modified)
	m.remember(rel, path, o.ETag)
	return nil
}

// syncCopies is how many files Sync copies at once.
const syncCopies = 8

// PushTree uploads every file of the local folder rel.
func (m *Mirror) PushTree(ctx context.Context, rel string) error {
	_, _, err := m.Sync(ctx, rel, SyncOptions{UploadOnly: true})
	return err
}

// Fetch downloads the object rel into the directory when the local copy
// is missing or another version; it reports whether the store has it.
func (m *Mirror) Fetch(ctx context.Context, rel string) (bool, error) {
	if m == nil {
		return false, nil
	}
	o, err := m.files.Stat(ctx, rel)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var info fs.FileInfo
	if st, err := os.Stat(filepath.Join(m.dir, filepath.FromSlash(rel))); err == nil {
		info = st
	}
	if m.decide(rel, info, &o) != download {
		return true, nil
	}
	defer m.save()
	return true, m.fetch(ctx, rel, o)
}

// fetch downloads the object o as rel, under a hidden name renamed into
// place, so readers never see part of a file.
func (m *Mirror) fetch(ctx context.Context, rel string, o Object) error {
	dst := filepath.Join(m.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("fetch %s: %w", rel, err)
	}
	tmp := filepath.Join(filepath.Dir(dst), fmt.Sprintf(".%s.tmp-%d", filepath.Base(dst), time.Now().UnixNano()))
	if err := m.files.Download(ctx, rel, tmp); err != nil {
		return fmt.Errorf("fetch %s: %w", rel, err)
	}
	_ = os.Chtimes(tmp, o.Modified, o.Modified)
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("fetch %s: %w", rel, err)
	}
	m.remember(rel, dst, o.ETag)
	return nil
}

// Remove deletes the object rel and every object under rel/ from the
// store (the local files are the caller's).
func (m *Mirror) Remove(ctx context.Context, rel string) error {
	if m == nil {
		return nil
	}
	objs, err := m.files.List(ctx, rel)
	if err != nil {
		return err
	}
	var errs []error
	for _, o := range objs {
		if o.Key == rel || strings.HasPrefix(o.Key, rel+"/") {
			errs = append(errs, m.files.Delete(ctx, o.Key))
		}
	}
	return errors.Join(errs...)
}

// Ping tells whether the store answers (nil without one).
func (m *Mirror) Ping(ctx context.Context) error {
	if m == nil {
		return nil
	}
	return m.files.Ping(ctx)
}
