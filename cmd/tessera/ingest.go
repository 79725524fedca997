package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/ingest"
	"github.com/tesseramaps/tessera/internal/store"
)

// ingestCmd adds files as tilesets through the same checks and conversion
// as the admin API's ingest.
func ingestCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data directory (default ./data, or TESSERA_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("ingest: name one or more .mbtiles, .pmtiles or .geojson files")
	}
	cfg, err := config.Load("", *dataDir, os.Getenv)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	svc, _, closeDB, err := openIngest(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeDB()
	for _, file := range fs.Args() {
		e, err := ingestFile(ctx, svc, file)
		if err != nil {
			return fmt.Errorf("ingest %s: %w", file, err)
		}
		fmt.Fprintf(stdout, "%s -> tileset %q (%s, id %s)\n", file, e.Name, e.Tileset.Source, e.ID)
	}
	return nil
}

func ingestFile(ctx context.Context, svc *ingest.Service, file string) (*catalog.Entry, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rec, err := svc.Create(ctx, filepath.Base(file), st.Size())
	if err != nil {
		return nil, err
	}
	if _, err := svc.Upload(ctx, rec.ID, f, nil); err != nil {
		return nil, err
	}
	return svc.Process(ctx, rec.ID)
}

// openIngest opens the state database, the catalog and the ingest service
// of a data directory, as the server does.
func openIngest(ctx context.Context, cfg config.Config, log *slog.Logger) (*ingest.Service, *catalog.Catalog, func(), error) {
	dsn := filepath.Join(cfg.DataDir, server.StateFile)
	if cfg.DatabaseURL != "" {
		dsn = cfg.DatabaseURL
	}
	mirror, err := server.SharedStorage(cfg, log)
	if err != nil {
		return nil, nil, nil, err
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, nil, nil, err
	}
	cat := catalog.New(filepath.Join(cfg.DataDir, server.TilesDir), db, catalog.Options{Logger: log, Shared: server.CatalogShared(mirror)})
	if err := cat.Load(ctx); err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	svc, err := ingest.New(ctx, db, cat, filepath.Join(cfg.DataDir, server.UploadsDir), ingest.Options{
		MaxSize: cfg.MaxUploadMB << 20, Expiry: cfg.UploadExpiry, Logger: log, FeaturesDir: filepath.Join(cfg.DataDir, server.DatasetsDir),
		Share: server.IngestShare(mirror),
	})
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	return svc, cat, func() { db.Close() }, nil
}
