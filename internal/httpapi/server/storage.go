package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/ingest"
	"github.com/tesseramaps/tessera/internal/pmtiles"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/tilesource"
	"github.com/tesseramaps/tessera/internal/weather"
)

// sharedFolders are the folders of the data directory that the nodes
// share through storage_url, brought in line with the store when a node
// starts (before it opens them): what the store has and the node lacks is
// downloaded, what the node has and the store lacks is uploaded. The
// tiles folder is not among them: its files are read from the store when
// opened (see openShared) and uploaded when made.
var sharedFolders = []string{FontsDir, SpritesDir, MapsDir, DatasetsDir, ImagesDir, path.Dir(GeocodingIndex), weather.Dir, ElevationDir, GeolocationDir}

// openStorage opens the shared storage of storage_url and brings the
// shared folders of the data directory in line with it. Without
// storage_url it does nothing (s.mirror stays nil: one node, its data
// directory the only copy). A store that cannot be reached does not stop
// the node: it serves what its directory holds and /ready says so.
func (s *Server) openStorage(ctx context.Context) error {
	if s.cfg.StorageURL == "" {
		return nil
	}
	st, err := blob.NewS3(s.cfg.StorageURL, blob.S3Options{Calls: s.s3calls})
	if err != nil {
		return fmt.Errorf("storage_url: %w", err)
	}
	s.storage = st
	s.mirror = blob.NewMirror(st, s.cfg.DataDir, s.log)
	s.syncShared(ctx)
	return nil
}

// SharedStorage opens the shared storage of cfg.StorageURL over the data
// directory, for the commands that write into it (tessera ingest, tessera
// image) as the server does: nil without storage_url.
func SharedStorage(cfg config.Config, log *slog.Logger) (*blob.Mirror, error) {
	if cfg.StorageURL == "" {
		return nil, nil
	}
	st, err := blob.NewS3(cfg.StorageURL, blob.S3Options{})
	if err != nil {
		return nil, fmt.Errorf("storage_url: %w", err)
	}
	return blob.NewMirror(st, cfg.DataDir, log), nil
}

// syncShared brings the shared folders in line with the storage, both
// ways (at start, and on a rescan: SIGHUP).
func (s *Server) syncShared(ctx context.Context) {
	if s.mirror == nil {
		return
	}
	start := time.Now()
	var up, down int
	for _, dir := range sharedFolders {
		u, d, err := s.mirror.Sync(ctx, dir, blob.SyncOptions{})
		up, down = up+u, down+d
		if err != nil {
			s.log.Error("shared storage: folder not synced", "folder", dir, "err", err)
		}
	}
	s.log.Info("shared storage synced", "storage", s.storage.Bucket(), "uploaded", up, "downloaded", down, "elapsed", time.Since(start).Round(time.Millisecond))
}

// Prepare implements catalog.Shared: before every scan of the tiles
// folder (at start, on a rescan by SIGHUP, the admin API or the watch),
// the files this node has that the store lacks (made before storage_url
// was set, or put in tiles/ by hand) go up, and the cached copies of files
// deleted from the store (their tilesets were deleted on another node) are
// removed, so that the scan does not record them again. None come down:
// they are opened from the store when needed.
func (t sharedTiles) Prepare(ctx context.Context) error {
	_, _, err := t.m.Sync(ctx, TilesDir, blob.SyncOptions{UploadOnly: true})
	return err
}

// sharedTiles is the catalog's view of the shared tiles folder.
type sharedTiles struct{ m *blob.Mirror }

// Put implements catalog.Shared.
func (t sharedTiles) Put(ctx context.Context, name, p string) error {
	return t.m.PushFile(ctx, TilesDir+"/"+name, p)
}

// Remove implements catalog.Shared.
func (t sharedTiles) Remove(ctx context.Context, name string) error {
	return t.m.Remove(ctx, TilesDir+"/"+name)
}

// Refresh implements catalog.Shared: a cached copy is downloaded again
// when the shared one is another version.
func (t sharedTiles) Refresh(ctx context.Context, name string) error {
	if missing(filepath.Join(t.m.Dir(), TilesDir, name)) {
		return nil // read from the storage: reopening reads the new one
	}
	_, err := t.m.Fetch(ctx, TilesDir+"/"+name)
	return err
}

// CatalogShared is the catalog's shared copy of the tiles folder in m
// (nil for a nil mirror: no storage_url).
func CatalogShared(m *blob.Mirror) catalog.Shared {
	if m == nil {
		return nil
	}
	return sharedTiles{m}
}

// IngestShare uploads a file an ingest kept in the data directory of m
// (the GeoJSON of a dataset, an image's pyramid); nil for a nil mirror.
func IngestShare(m *blob.Mirror) ingest.Share {
	if m == nil {
		return nil
	}
	return func(ctx context.Context, p string) error {
		rel, err := filepath.Rel(m.Dir(), p)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("%s is not inside the data directory", p)
		}
		return m.Push(ctx, filepath.ToSlash(rel))
	}
}

func (s *Server) catalogShared() catalog.Shared { return CatalogShared(s.mirror) }

func (s *Server) share() ingest.Share { return IngestShare(s.mirror) }

// openShared opens a tileset file this node does not have from the shared
// storage: a PMTiles archive is read there with range requests (nothing
// is downloaded); an MBTiles file is downloaded into the tiles folder
// first, since SQLite reads a local file. fs.ErrNotExist when the store
// does not have it either.
func (s *Server) openShared(ctx context.Context, rec store.Tileset, p string) (tilesource.Source, error) {
	key := TilesDir + "/" + rec.Source
	if strings.EqualFold(filepath.Ext(rec.Source), ".pmtiles") && s.storage != nil {
		src := pmtiles.NewS3ClientSource(s.storage.Client(), s.storage.Bucket(), s.storage.Key(key))
		return tilesource.OpenPMTilesSource(ctx, src, key, tilesource.PMTilesOptions{Logger: s.log})
	}
	ok, err := s.mirror.Fetch(ctx, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	return catalog.OpenLocal(ctx, rec, p)
}

// missing tells whether there is no file at p.
func missing(p string) bool {
	_, err := os.Stat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// storagePing checks the shared storage for /ready: "ok", "none" without
// storage_url, or why it did not answer.
func (s *Server) storagePing(ctx context.Context) (string, bool) {
	if s.mirror == nil {
		return "none", true
	}
	if err := s.mirror.Ping(ctx); err != nil {
		return err.Error(), false
	}
	return "ok", true
}

// imageMissTTL is how long an image the storage did not have is answered
// 404 without asking it again, so that requests of images that do not
// exist cost no S3 call each; an image another node makes is served here
// at most this long after.
const imageMissTTL = 30 * time.Second

// maxImageMisses bounds the ids remembered (all forgotten when full).
const maxImageMisses = 10000

// fetchImage gets an image another node made from the shared storage
// (nil without storage_url).
func (s *Server) fetchImage() func(ctx context.Context, id string) (bool, error) {
	if s.mirror == nil {
		return nil
	}
	var mu sync.Mutex
	misses := map[string]time.Time{}
	return func(ctx context.Context, id string) (bool, error) {
		mu.Lock()
		missed, ok := misses[id]
		mu.Unlock()
		if ok && time.Since(missed) < imageMissTTL {
			return false, nil
		}
		found, err := s.mirror.Fetch(ctx, ImagesDir+"/"+id+".mbtiles")
		if err == nil && !found {
			mu.Lock()
			if len(misses) >= maxImageMisses {
				clear(misses)
			}
			misses[id] = time.Now()
			mu.Unlock()
		}
		return found, err
	}
}

// fetchFeatures gets the GeoJSON of a dataset that another node made or
// changed from the shared storage, before the catalog hears of its
// tileset (nothing without storage_url, or when the tileset has none).
func (s *Server) fetchFeatures(ctx context.Context, tilesetID string) {
	if s.mirror == nil || strings.ContainsAny(tilesetID, `/\`) || strings.HasPrefix(tilesetID, ".") {
		return
	}
	if _, err := s.mirror.Fetch(ctx, DatasetsDir+"/"+tilesetID+".geojson"); err != nil {
		s.log.Warn("shared storage: dataset features not fetched", "tileset", tilesetID, "err", err)
	}
}

// sharedFeaturesGrace keeps a dataset's GeoJSON in the storage this long
// even without its tileset: another node uploads it just before it
// commits the tileset's record.
var sharedFeaturesGrace = time.Hour

// pruneSharedFeatures deletes from the storage the GeoJSON of tilesets
// that no longer exist (at start, as the local copies are pruned); the
// other nodes' copies leave their caches at their next sync.
func (s *Server) pruneSharedFeatures(ctx context.Context) {
	if s.mirror == nil {
		return
	}
	objs, err := s.mirror.Files().List(ctx, DatasetsDir+"/")
	if err != nil {
		s.log.Warn("shared storage: datasets of deleted tilesets not removed", "err", err)
		return
	}
	n := 0
	for _, o := range objs {
		id, ok := strings.CutSuffix(path.Base(o.Key), ".geojson")
		if !ok || time.Since(o.Modified) < sharedFeaturesGrace {
			continue
		}
		if _, exists := s.Catalog.ByID(id); exists {
			continue
		}
		if err := s.mirror.Files().Delete(ctx, o.Key); err != nil {
			s.log.Warn("shared storage: dataset of a deleted tileset not removed", "key", o.Key, "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		s.log.Info("shared storage: removed the datasets of deleted tilesets", "files", n)
	}
}
