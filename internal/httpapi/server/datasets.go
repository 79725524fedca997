package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/httpapi/account"
	"github.com/tesseramaps/tessera/internal/ingest"
)

// Folders of the dataset ingests inside the uploads directory.
const (
	DatasetUploadsDir = "datasets" // resumable uploads, downloaded objects
	BlobsDir          = "blobs"    // the local multipart target's objects and parts
)

// sharedChunks is where the chunks of resumable uploads are kept: the
// shared storage, so that they may arrive at any node; nil (this node's
// disk) without storage_url.
func (s *Server) sharedChunks() blob.Files {
	if s.storage == nil {
		return nil
	}
	return s.storage
}

// openDatasets starts the account API's dataset ingests: multipart uploads
// go to the configured S3 storage, or to the server itself (part URLs
// signed with a secret kept in the state database, so that every node
// sharing it accepts them).
func (s *Server) openDatasets(ctx context.Context) (*ingest.Datasets, error) {
	var bs blob.Store
	if s.storage != nil {
		bs = s.storage
	} else {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("generate the part URL secret: %w", err)
		}
		secret, err := s.db.SetSettingIfAbsent(ctx, "dataset_part_secret", hex.EncodeToString(b[:]))
		if err != nil {
			return nil, err
		}
		local, err := blob.NewLocal(filepath.Join(s.cfg.DataDir, UploadsDir, BlobsDir), blob.LocalOptions{
			Secret: []byte(secret), PartPath: account.PartsPath, MaxPartSize: s.cfg.MaxUploadMB << 20,
		})
		if err != nil {
			return nil, err
		}
		bs = local
	}
	d, err := ingest.NewDatasets(ctx, s.db, s.Catalog, filepath.Join(s.cfg.DataDir, UploadsDir, DatasetUploadsDir), ingest.DatasetOptions{
		Chunks:  s.sharedChunks(),
		MaxSize: s.cfg.MaxUploadMB << 20, Quota: s.cfg.StorageQuotaMB << 20, Blob: bs, Expiry: s.cfg.UploadExpiry, Lease: s.cfg.IngestLease,
		Retention: s.cfg.IngestRetention, Logger: s.log,
		FeaturesDir: filepath.Join(s.cfg.DataDir, DatasetsDir),
		ImagesDir:   filepath.Join(s.cfg.DataDir, ImagesDir),
		Share:       s.share(),
	})
	if err != nil {
		return nil, err
	}
	d.Start()
	return d, nil
}
