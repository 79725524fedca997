// Package server assembles Tessera's HTTP server: it opens the state
// database and the catalog of the data directory, builds the route tables
// of each API document behind their middleware, and runs the http.Server
// with its timeouts, the directory watcher and graceful shutdown.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/egress"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/mapimage"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/changefeed"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/coords"
	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/geoip"
	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/httpapi/account"
	"github.com/tesseramaps/tessera/internal/httpapi/admin"
	"github.com/tesseramaps/tessera/internal/httpapi/middleware"
	"github.com/tesseramaps/tessera/internal/httpapi/public"
	"github.com/tesseramaps/tessera/internal/ingest"
	"github.com/tesseramaps/tessera/internal/prerender"
	"github.com/tesseramaps/tessera/internal/pyramid"
	"github.com/tesseramaps/tessera/internal/sprite"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/svctoken"
	"github.com/tesseramaps/tessera/internal/tilecache"
	"github.com/tesseramaps/tessera/internal/tilesource"
	"github.com/tesseramaps/tessera/internal/usage"
	"github.com/tesseramaps/tessera/internal/weather"
	"github.com/tesseramaps/tessera/internal/web"
)

// Server is a configured Tessera server over one data directory.
type Server struct {
	cfg     config.Config
	log     *slog.Logger
	db      *store.DB
	Catalog *catalog.Catalog
	Maps    *catalog.Maps
	fonts   *glyphs.Library
	sprites *sprite.Cache
	geo     *geocode.Index
	// coords is the coordinate systems service (nil: no proj.db found).
	coords *coords.Service
	cache  *tilecache.Cache
	ingest *ingest.Service
	// datasets are the account API's dataset ingests.
	datasets *ingest.Datasets
	// prerender runs the admin API's pre-render jobs.
	prerender *prerender.Jobs
	metrics   *middleware.Metrics
	token     string
	// TokenGenerated tells that the admin token was generated (and should
	// be printed) rather than configured.
	TokenGenerated bool
	handler        http.Handler
	// remoteClient reads remote tilesets: only from the addresses the egress
	// policy allows (public ones and remote_allow), checked on every
	// connection.
	remoteClient *http.Client
	// images renders maps as raster tiles, static maps and WMS pictures.
	images *mapimage.Service
	// meter counts the public and account requests (usage analytics) and
	// flushes the counts to the state database.
	meter *usage.Meter
	// analytics answers the usage analytics queries.
	analytics *usage.Analytics
	// The route tables, kept so that every route can be walked.
	publicRoutes, adminRoutes, accountRoutes *route.Table
	// tokens are the account API's service tokens.
	tokens *svctoken.Service
	// keys are the public API's keys, checked from an in-memory snapshot.
	keys *apikey.Service
	// pictures are the images of /images/ (pixel pyramids).
	pictures *pyramid.Library
	// elev answers elevation requests (no grids: none installed).
	elev *elevation.Model
	// geoip locates callers (nil: no IP database installed).
	geoip *geoip.DB
	// feed hears the changes of other nodes sharing the PostgreSQL state
	// (nil on SQLite): see nodes.go.
	feed *changefeed.Listener
	// s3calls counts the S3 calls of every client (storage and remote
	// PMTiles archives).
	s3calls *blob.Calls
	// storage is the shared storage of storage_url and mirror the data
	// directory's folders kept as its cache (both nil without it).
	storage *blob.S3
	mirror  *blob.Mirror
}

// Paths inside the data directory.
const (
	StateFile = "state.db"
	TilesDir  = "tiles"
	MapsDir   = "maps"
	FontsDir  = "fonts"
	// GeocodingIndex is the geocoding index, inside the data directory.
	GeocodingIndex = "geocoding/world.tgi"
	UploadsDir     = "uploads"
	// SpritesDir holds the named icon sets of /sprites/{id}/, one folder
	// of icons each.
	SpritesDir = "sprites"
	// ImagesDir holds the images of /images/{id}/, <id>.mbtiles each.
	ImagesDir = "images"
	// DatasetsDir keeps the GeoJSON uploads of /data/{id}/features.json,
	// <tileset id>.geojson each.
	DatasetsDir = "datasets"
	// ElevationDir holds the elevation models (NetCDF and GeoTIFF).
	ElevationDir = "elevation"
	// GeolocationDir holds the IP databases and their tables.
	GeolocationDir = "geolocation"
)

// KeyRefresh is how often the API keys are reloaded from a SQLite state
// file that something else may change (this node's own changes apply at
// once; on PostgreSQL the change feed carries other nodes' changes).
const KeyRefresh = 5 * time.Second

// New opens the data directory: the state database, the catalog (scanning
// tiles/) and the ingest service, and builds the handler.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("make data directory: %w", err)
	}
	dsn := filepath.Join(cfg.DataDir, StateFile)
	if cfg.DatabaseURL != "" {
		dsn = cfg.DatabaseURL
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: log, db: db, metrics: middleware.NewMetrics(), tokens: svctoken.New(db), keys: apikey.NewService(db, log), s3calls: &blob.Calls{}}
	if err := s.keys.Load(ctx); err != nil {
		db.Close()
		return nil, err
	}
	allow, err := cfg.RemoteAllowed()
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("remote_allow: %w", err)
	}
	s.remoteClient = egress.Policy{Allow: allow}.Client(60 * time.Second)
	s.cache = tilecache.New(int64(cfg.TileCacheMB) << 20)
	if err := s.openStorage(ctx); err != nil {
		db.Close()
		return nil, err
	}
	s.Catalog = catalog.New(filepath.Join(cfg.DataDir, TilesDir), db, catalog.Options{Logger: log, Opener: s.open, Shared: s.catalogShared()})
	if err := s.Catalog.Load(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.DataDir, FontsDir), 0o755); err != nil {
		db.Close()
		return nil, fmt.Errorf("make fonts directory: %w", err)
	}
	if s.fonts, err = glyphs.Open(ctx, filepath.Join(cfg.DataDir, FontsDir), glyphs.WithLogger(log)); err != nil {
		db.Close()
		return nil, err
	}
	s.sprites = sprite.NewCache()
	s.pictures = &pyramid.Library{Dir: filepath.Join(cfg.DataDir, ImagesDir), Fetch: s.fetchImage()}
	s.Maps = catalog.NewMaps(filepath.Join(cfg.DataDir, MapsDir), db, s.checkStyle, log)
	if s.mirror != nil {
		s.Maps.ShareRemovals(func(ctx context.Context, folder string) error { return s.mirror.Remove(ctx, MapsDir+"/"+folder) })
	}
	s.Maps.ShareStyles(s.share())
	if cfg.OnlyMaps != nil {
		s.Maps.Only(cfg.OnlyMaps...)
	}
	if err := s.Maps.Scan(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.openGeocoder(); err != nil {
		db.Close()
		return nil, err
	}
	if s.elev, err = elevation.Open(ctx, filepath.Join(cfg.DataDir, ElevationDir), log); err != nil {
		db.Close()
		return nil, err
	}
	if path, err := coords.FindDatabase(); err == nil {
		s.coords = coords.NewService(path, log)
	} else {
		log.Info("coordinate systems are off", "err", err)
	}
	if s.geoip, err = geoip.Open(filepath.Join(cfg.DataDir, GeolocationDir)); err != nil {
		db.Close()
		return nil, err
	}
	if s.ingest, err = ingest.New(ctx, db, s.Catalog, filepath.Join(cfg.DataDir, UploadsDir), ingest.Options{
		MaxSize: cfg.MaxUploadMB << 20, Expiry: cfg.UploadExpiry, Logger: log, FeaturesDir: filepath.Join(cfg.DataDir, DatasetsDir),
		Lease: cfg.IngestLease, Retention: cfg.IngestRetention, Share: s.share(), Chunks: s.sharedChunks(),
	}); err != nil {
		db.Close()
		return nil, err
	}
	if n, err := ingest.PruneFeatures(filepath.Join(cfg.DataDir, DatasetsDir), func(id string) bool {
		_, ok := s.Catalog.ByID(id)
		return ok
	}); err != nil {
		log.Warn("datasets of deleted tilesets not removed", "err", err)
	} else if n > 0 {
		log.Info("removed the datasets of deleted tilesets", "files", n)
	}
	s.pruneSharedFeatures(ctx)
	if s.datasets, err = s.openDatasets(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.adminToken(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if s.images, err = mapimage.New(s.Catalog, mapimage.Options{
		Workers: cfg.RenderWorkers, Depth: cfg.RenderQueue, Timeout: cfg.RenderTimeout,
		CacheBytes: int64(cfg.RenderCacheMB) << 20, Remote: s.remoteClient, Sprites: s.sprites, Logger: log,
		Maps: s.Maps, Fonts: s.fonts,
	}); err != nil {
		db.Close()
		return nil, err
	}
	// Pre-render jobs are claimed by whichever node's worker is free
	// (started by Serve); a job renders one tile at a time beside the
	// requests' renders.
	s.prerender = prerender.NewJobs(ctx, db, s.Catalog, s.Maps, s.images, prerender.JobOptions{Lease: cfg.IngestLease, Logger: log, Workers: 1})
	s.meter = usage.NewMeter(db, usage.Options{Interval: cfg.UsageFlushInterval, Logger: log})
	s.feed = s.newFeed()
	s.registerMetrics()
	s.handler = s.routes()
	return s, nil
}

// open opens a tileset record: local files by extension, remote records as
// PMTiles archives over HTTP or S3.
func (s *Server) open(ctx context.Context, rec store.Tileset, path string) (tilesource.Source, error) {
	if rec.Storage == store.StorageFile {
		if s.mirror != nil && missing(path) {
			return s.openShared(ctx, rec, path)
		}
		return catalog.OpenLocal(ctx, rec, path)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	opts := tilesource.PMTilesOptions{Logger: s.log}
	opts.Source.HTTP.Client = s.remoteClient
	opts.Source.S3.Client = s.remoteClient
	opts.Source.S3.Calls = s.s3calls
	return tilesource.OpenPMTiles(ctx, rec.Source, opts)
}

// adminToken takes the configured credentials, or the generated token kept
// in the state database, generating it on first start.
func (s *Server) adminToken(ctx context.Context) error {
	if s.cfg.AdminCredentials != "" {
		s.token = s.cfg.AdminCredentials
		return nil
	}
	tok, err := s.db.Setting(ctx, "admin_credentials")
	if errors.Is(err, store.ErrNotFound) {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return fmt.Errorf("generate admin token: %w", err)
		}
		// Several nodes may start together on one database: the first
		// token stored is the one every node keeps.
		if tok, err = s.db.SetSettingIfAbsent(ctx, "admin_credentials", hex.EncodeToString(b[:])); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	s.token, s.TokenGenerated = tok, true
	return nil
}

// Images is the service that renders the maps as images.
func (s *Server) Images() *mapimage.Service { return s.images }

// AdminToken is the credentials token of the admin API.
func (s *Server) AdminToken() string { return s.token }

func (s *Server) registerMetrics() {
	s.metrics.Register(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_tile_cache_hits_total", Help: "Tile cache hits."},
			func() float64 { return float64(s.cache.Stats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_tile_cache_misses_total", Help: "Tile cache misses."},
			func() float64 { return float64(s.cache.Stats().Misses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tessera_tile_cache_bytes", Help: "Bytes held by the tile cache."},
			func() float64 { return float64(s.cache.Stats().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tessera_renders_running", Help: "Map images rendering now."},
			func() float64 { return float64(s.images.QueueStats().Running) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tessera_renders_admitted", Help: "Map images rendering or waiting."},
			func() float64 { return float64(s.images.QueueStats().Admitted) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_renders_refused_total", Help: "Map images refused: the render queue was full or the render could not start in time."},
			func() float64 { return float64(s.images.QueueStats().Refused) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_render_timeouts_total", Help: "Map image renders cut at their deadline."},
			func() float64 { return float64(s.images.QueueStats().TimedOut) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_render_panics_total", Help: "Map image renders that panicked (answered 500)."},
			func() float64 { return float64(s.images.QueueStats().Panicked) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_renders_work_bound_total", Help: "Map images refused for needing more drawing than one render may do (answered 400)."},
			func() float64 { return float64(s.images.WorkBound()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_raster_cache_hits_total", Help: "Rendered raster tile cache hits."},
			func() float64 { return float64(s.images.CacheStats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_raster_cache_misses_total", Help: "Rendered raster tile cache misses."},
			func() float64 { return float64(s.images.CacheStats().Misses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tessera_tilesets", Help: "Tilesets in the catalog."},
			func() float64 { return float64(len(s.Catalog.List())) }),
	)
	s.metrics.Register(s.nodeMetrics()...)
}

// routes builds the handler: one table per API document.
func (s *Server) routes() http.Handler {
	mux := route.New()

	proxies, _ := s.cfg.Proxies()        // checked by the configuration's Validate
	local, _ := s.cfg.GeolocationLocal() // likewise
	pub := public.New(public.Deps{
		Catalog: s.Catalog, Cache: s.cache, Metrics: s.metrics, Log: s.log, PublicURL: s.cfg.PublicURL,
		CacheControlTiles: s.cfg.CacheControlTiles, CacheControlDocuments: s.cfg.CacheControlDocuments,
		Maps: s.Maps, Fonts: s.fonts, Sprites: s.sprites, RewriteStyle: rewriteStyle, Geocoder: s.geo,
		Images: s.images, Elevation: s.elev, SpritesDir: filepath.Join(s.cfg.DataDir, SpritesDir),
		Coordinates: s.coords,
		WeatherDir:  filepath.Join(s.cfg.DataDir, weather.Dir),
		GeoIP:       s.geoip, TrustedProxies: proxies, GeolocationLocal: local,
		DatasetsDir: filepath.Join(s.cfg.DataDir, DatasetsDir),
		Pictures:    s.pictures,
	})
	pub.Register(mux)
	pub.RegisterMaps(mux)
	pub.RegisterMapImages(mux)
	pub.RegisterOGC(mux)
	pub.RegisterGeocoding(mux)
	pub.RegisterServices(mux)
	pub.RegisterWeather(mux)
	pub.RegisterSprites(mux)
	pub.RegisterCoordinates(mux)
	pub.RegisterData(mux)
	pub.RegisterPictures(mux)
	mux.Handle("GET /static/", web.Static())
	mux.Handle("GET /metrics", s.metrics.Handler())
	mux.HandleFunc("GET /ready", s.ready)

	adminMux := route.New()
	adm := admin.New(admin.Deps{Catalog: s.Catalog, Maps: s.Maps, Ingest: s.ingest, Tokens: s.tokens, Prerender: s.prerender, Log: s.log, PublicURL: s.cfg.PublicURL})
	adm.Register(adminMux)
	mux.Mount(admin.Prefix+"/", middleware.AdminAuth(func() string { return s.token })(adminMux))
	adm.RegisterUpload(mux)

	// The account service API (spec 001 B) at /v1/, behind service tokens;
	// the admin API's longer prefix /v1/admin/ wins over it.
	accountMux := route.New()
	acct := account.New(account.Deps{DB: s.db, Catalog: s.Catalog, Keys: s.keys, Log: s.log, PublicURL: s.cfg.PublicURL})
	acct.Register(accountMux)
	acct.RegisterDatasets(accountMux, mux, s.datasets)
	s.analytics = &usage.Analytics{DB: s.db, BillingDay: s.cfg.BillingDay}
	account.RegisterAnalytics(accountMux, s.analytics, s.log)
	mux.Mount(account.Prefix+"/", middleware.ServiceToken(s.tokens.Check, s.log)(middleware.Usage(s.meter, usage.ClassifyAccount)(accountMux)))
	s.publicRoutes, s.adminRoutes, s.accountRoutes = mux, adminMux, accountMux

	var accessLog *slog.Logger
	if s.cfg.AccessLog {
		accessLog = s.log
	}
	return middleware.Chain(pub.FastTiles(mux),
		middleware.Recover(s.log),
		middleware.TrustProxies(proxies),
		middleware.RequestID,
		middleware.Observe(s.metrics, accessLog),
		middleware.Limits(s.cfg.MaxURIBytes, s.cfg.MaxBodyKB<<10),
		middleware.CORS(s.cfg.CORSOrigins),
		middleware.APIKeys(s.cfg.APIKeys, s.keys.Snapshot),
		// Keep Usage after APIKeys: it reads the caller that the key
		// check puts in the request's context.
		middleware.Usage(s.meter, usage.Classify),
	)
}

// Routes returns the patterns of the public route table (which also holds
// the upload URL and mounts the admin table at /v1/admin/) and of the admin
// table (paths relative to the server root).
func (s *Server) Routes() (public, admin []string) {
	return s.publicRoutes.Patterns(), s.adminRoutes.Patterns()
}

// AccountRoutes returns the patterns of the account table, mounted at /v1/.
func (s *Server) AccountRoutes() []string { return s.accountRoutes.Patterns() }

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// HTTPServer returns an http.Server for the handler with the configured
// timeouts and header limit.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Addr:              s.cfg.Listen,
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderKB << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Serve serves on ln until ctx ends, then shuts down gracefully. When
// watching is on, changes in the tiles directory are picked up.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer()
	if s.cfg.Watch {
		go s.watch(ctx)
	}
	// Abandoned uploads are removed every quarter of the expiry (at most
	// every ten minutes).
	go s.ingest.RunExpiry(ctx, min(max(s.cfg.UploadExpiry/4, time.Second), 10*time.Minute))
	// Changes made by other nodes sharing the database are picked up.
	s.follow(ctx)
	if s.coords != nil {
		s.coords.Warm() // the coordinate systems index is read in the background
	}
	s.meter.Start()
	s.prerender.Start()
	go func() {
		// The first analytics query of this node is then as fast as the next.
		if err := s.analytics.Warm(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("usage analytics not warmed", "err", err)
		}
	}()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(shutCtx)
	<-errc
	// Every request has been answered: the last counts are flushed.
	return errors.Join(err, s.meter.Close(shutCtx))
}

// Rescan picks up changes in the tiles, maps and fonts directories (with
// storage_url, after bringing the shared folders in line with the
// storage, both ways).
func (s *Server) Rescan(ctx context.Context) error {
	s.syncShared(ctx)
	_, err := s.Catalog.Rescan(ctx)
	fontsErr := s.fonts.Rescan(ctx) // before the maps: their check looks fonts up
	return errors.Join(err, fontsErr, s.Maps.Scan(ctx))
}

// openGeocoder opens the geocoding index when there is one.
func (s *Server) openGeocoder() error {
	path := s.cfg.GeocodingIndex
	if path == "" {
		path = filepath.Join(s.cfg.DataDir, GeocodingIndex)
	}
	if path == "none" {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		s.log.Info("no geocoding index: geocoding is off", "path", path)
		return nil
	}
	start := time.Now()
	ix, err := geocode.Open(path)
	if err != nil {
		return fmt.Errorf("open the geocoding index: %w", err)
	}
	s.geo = ix
	s.log.Info("geocoding index loaded", "path", path, "features", ix.Len(), "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// Close flushes the usage counts and releases the state database, the
// fonts and the geocoding index.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.datasets.Close()
	s.prerender.Close()
	s.pictures.Close()
	flushErr := s.meter.Close(ctx)
	s.fonts.Close()
	if s.geo != nil {
		s.geo.Close()
	}
	if s.coords != nil {
		s.coords.Close()
	}
	if s.geoip != nil {
		s.geoip.Close()
	}
	return errors.Join(flushErr, s.db.Close())
}
