// Package config holds Tessera's settings: built-in defaults, overridden by the
// data directory's tessera.yaml (or a file named on the command line), then by
// TESSERA_* environment variables, then by command-line flags.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the whole configuration. Each field's yaml key is also settable
// as the environment variable TESSERA_<KEY in upper case>.
type Config struct {
	// DataDir is the data directory (tiles/, maps/, fonts/, state.db...).
	DataDir string `yaml:"data_dir"`
	// Listen is the HOST:PORT the server listens on.
	Listen string `yaml:"listen"`
	// PublicURL is the absolute URL clients reach the server at (for URLs
	// inside documents); empty means: from the request's Host and
	// X-Forwarded-* headers.
	PublicURL string `yaml:"public_url"`
	// TrustedProxies lists the addresses (IPs or CIDR prefixes) of reverse
	// proxies whose Forwarded and X-Forwarded-* headers are believed. Empty
	// (the default): the headers are ignored from every peer.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// RemoteAllow lists addresses (IPs or CIDR prefixes) that outbound
	// requests (remote tilesets, marker icons) may reach although they are
	// not public: loopback, private, link-local... Empty (the default):
	// only public addresses.
	RemoteAllow []string `yaml:"remote_allow"`
	// AdminCredentials is the token expected after "Basic " on admin
	// requests. Empty: a random token is generated once and kept in state.db.
	AdminCredentials string `yaml:"admin_credentials"`

	// CacheControlTiles is the Cache-Control header of tiles.
	CacheControlTiles string `yaml:"cache_control_tiles"`
	// CacheControlDocuments is the Cache-Control header of TileJSON, styles
	// and capabilities documents.
	CacheControlDocuments string `yaml:"cache_control_documents"`
	// CORSOrigins lists the origins allowed by CORS; "*" allows any.
	CORSOrigins []string `yaml:"cors_origins"`

	// TileCacheMB bounds the in-memory cache of tile bytes, in MiB (0 = off).
	TileCacheMB int `yaml:"tile_cache_mb"`
	// MemoryLimitMB is the Go runtime's soft memory limit, in MiB: the
	// garbage collector works harder near it (0 = the tile cache and the
	// render cache plus 192 MiB; GOMEMLIMIT in the environment wins).
	MemoryLimitMB int `yaml:"memory_limit_mb"`
	// RenderWorkers is how many map images render at once (0: one fewer
	// than the cores, at least one; however many, renders share that many
	// cores, see cpuslots); RenderQueue how many more may wait (0: eight per worker, at least 16) before
	// requests get 503; RenderTimeout cuts a render; RenderCacheMB bounds
	// the cache of rendered raster tiles, in MiB (0 = off).
	RenderWorkers int           `yaml:"render_workers"`
	RenderQueue   int           `yaml:"render_queue"`
	RenderTimeout time.Duration `yaml:"render_timeout"`
	RenderCacheMB int           `yaml:"render_cache_mb"`
	// MaxUploadMB is the largest accepted ingest upload, in MiB.
	MaxUploadMB int64 `yaml:"max_upload_mb"`
	// UploadExpiry removes an ingest upload (record and file) that has
	// received nothing for this long.
	UploadExpiry time.Duration `yaml:"upload_expiry"`
	// IngestRetention purges the records of finished ingests (completed,
	// canceled, failed; done) this long after their last change.
	IngestRetention time.Duration `yaml:"ingest_retention"`
	// MaxBodyKB bounds JSON request bodies, in KiB.
	MaxBodyKB int64 `yaml:"max_body_kb"`
	// MaxURIBytes bounds the request URI (414 above).
	MaxURIBytes int `yaml:"max_uri_bytes"`
	// MaxHeaderKB bounds request headers, in KiB.
	MaxHeaderKB int `yaml:"max_header_kb"`

	// ReadTimeout, WriteTimeout and IdleTimeout are the server's timeouts;
	// uploads get their own longer deadline (UploadTimeout).
	ReadTimeout   time.Duration `yaml:"read_timeout"`
	WriteTimeout  time.Duration `yaml:"write_timeout"`
	IdleTimeout   time.Duration `yaml:"idle_timeout"`
	UploadTimeout time.Duration `yaml:"upload_timeout"`

	// GeocodingIndex is the geocoding index file ("" = DATA_DIR/geocoding/world.tgi).
	GeocodingIndex string `yaml:"geocoding_index"`
	// GeolocationLocalAddress is the address IP geolocation looks up for
	// callers on loopback or private addresses ("" = none: they get 404).
	GeolocationLocalAddress string `yaml:"geolocation_local_address"`
	// Watch turns on watching the tiles directory for changes.
	Watch bool `yaml:"watch"`
	// LogLevel is debug, info, warn or error; LogFormat is text or json.
	LogLevel  string `yaml:"log_level"`
	LogFormat string `yaml:"log_format"`
	// AccessLog turns on one log line per request.
	AccessLog bool `yaml:"access_log"`

	// OnlyMaps, when not nil, limits the maps read from the maps directory
	// to these ids (tessera render --map reads and checks only the map it
	// draws). Set by commands, never by the file or the environment.
	OnlyMaps []string `yaml:"-"`

	// DatabaseURL, when set, is a PostgreSQL URL (postgres://...) that holds
	// the state in place of DATA_DIR/state.db.
	DatabaseURL string `yaml:"database_url"`
	// StorageURL, when set, is an S3 location (s3://bucket/prefix, with
	// endpoint, region and path_style=true in its query) for uploads.
	StorageURL string `yaml:"storage_url"`
	// APIKeys is required, optional or off: whether the public API needs a
	// key (spec 002).
	APIKeys string `yaml:"api_keys"`
	// UsageFlushInterval is how often usage counts go from memory to the
	// state database (a crash loses at most this much).
	UsageFlushInterval time.Duration `yaml:"usage_flush_interval"`
	// BillingDay is the day of the month (1..28) on which a billing period
	// starts, for the usage analytics.
	BillingDay int `yaml:"billing_day"`
	// IngestLease is how long a node holds an ingest it processes without
	// renewing the claim (it renews every quarter of it): a node that died
	// while processing has its work taken over by another this long after.
	IngestLease time.Duration `yaml:"ingest_lease"`
	// StorageQuotaMB bounds the bytes of the account's uploaded tilesets and
	// datasets (0: no bound); an ingest past it answers 403.
	StorageQuotaMB int64 `yaml:"storage_quota_mb"`
}

// The values of api_keys.
const (
	APIKeysOff      = "off"
	APIKeysOptional = "optional"
	APIKeysRequired = "required"
)

// Default returns the built-in defaults.
func Default() Config {
	return Config{
		DataDir:               "data",
		Listen:                "127.0.0.1:8080",
		CacheControlTiles:     "public, max-age=3600",
		CacheControlDocuments: "public, max-age=60",
		CORSOrigins:           []string{"*"},
		TileCacheMB:           48,
		RenderTimeout:         30 * time.Second,
		RenderCacheMB:         64,
		MaxUploadMB:           2048,
		UploadExpiry:          24 * time.Hour,
		IngestRetention:       30 * 24 * time.Hour,
		MaxBodyKB:             1024,
		MaxURIBytes:           8192,
		MaxHeaderKB:           64,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          60 * time.Second,
		IdleTimeout:           120 * time.Second,
		UploadTimeout:         2 * time.Hour,
		Watch:                 true,
		LogLevel:              "info",
		LogFormat:             "text",
		AccessLog:             false,
		APIKeys:               APIKeysOff,
		UsageFlushInterval:    10 * time.Second,
		BillingDay:            1,
		IngestLease:           time.Minute,
	}
}

// FileName is the configuration file looked for in the data directory.
const FileName = "tessera.yaml"

// Load builds the configuration: defaults, then the file (file, or
// DATA_DIR/tessera.yaml when file is empty and that exists), then the
// environment (getenv, usually os.Getenv). dataDir, when not empty, is the
// data directory chosen on the command line; it is applied before the file is
// looked for, and again last so that it wins.
func Load(file, dataDir string, getenv func(string) string) (Config, error) {
	c := Default()
	if v := getenv("TESSERA_DATA_DIR"); v != "" {
		c.DataDir = v
	}
	if dataDir != "" {
		c.DataDir = dataDir
	}
	if file == "" {
		file = getenv("TESSERA_CONFIG")
	}
	if file == "" {
		candidate := filepath.Join(c.DataDir, FileName)
		if _, err := os.Stat(candidate); err == nil {
			file = candidate
		}
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return c, fmt.Errorf("read config %s: %w", file, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
			return c, fmt.Errorf("parse config %s: %w", file, err)
		}
	}
	if err := applyEnv(&c, getenv); err != nil {
		return c, err
	}
	if dataDir != "" {
		c.DataDir = dataDir
	}
	if c.DataDir != "" {
		// Later work may change directory (tools run inside caches):
		// resolve the data directory once, here.
		abs, err := filepath.Abs(c.DataDir)
		if err != nil {
			return c, fmt.Errorf("data directory %s: %w", c.DataDir, err)
		}
		c.DataDir = abs
	}
	return c, c.Validate()
}

// applyEnv sets each field whose TESSERA_<KEY> variable is set.
func applyEnv(c *Config, getenv func(string) string) error {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		key, ok := settingKey(t.Field(i))
		if !ok {
			continue
		}
		env := "TESSERA_" + strings.ToUpper(key)
		s := getenv(env)
		if s == "" {
			continue
		}
		if err := setField(v.Field(i), s); err != nil {
			return fmt.Errorf("environment %s=%q: %w", env, s, err)
		}
	}
	return nil
}

// Set sets the setting named by its yaml key from text, as a flag would.
func (c *Config) Set(key, value string) error {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if k, ok := settingKey(t.Field(i)); ok && k == key {
			if err := setField(v.Field(i), value); err != nil {
				return fmt.Errorf("setting %s=%q: %w", key, value, err)
			}
			return nil
		}
	}
	return fmt.Errorf("unknown setting %q", key)
}

func setField(f reflect.Value, s string) error {
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		if f.Type() == reflect.TypeOf(time.Duration(0)) {
			d, err := time.ParseDuration(s)
			if err != nil {
				return err
			}
			f.SetInt(int64(d))
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return err
		}
		f.SetInt(n)
	case reflect.Slice:
		var items []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				items = append(items, p)
			}
		}
		f.Set(reflect.ValueOf(items))
	default:
		return fmt.Errorf("unsupported kind %s", f.Kind())
	}
	return nil
}

// Proxies returns the trusted proxy addresses as prefixes.
func (c Config) Proxies() ([]netip.Prefix, error) { return ParsePrefixes(c.TrustedProxies) }

// RemoteAllowed returns the remote_allow addresses as prefixes.
func (c Config) RemoteAllowed() ([]netip.Prefix, error) { return ParsePrefixes(c.RemoteAllow) }

// ParsePrefixes reads a list of IP addresses and CIDR prefixes (an address
// is the prefix of that one address; IPv4-mapped IPv6 forms are read as
// IPv4).
func ParsePrefixes(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR prefix", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// GeolocationLocal returns the parsed geolocation_local_address (the zero
// Addr when unset).
func (c Config) GeolocationLocal() (netip.Addr, error) {
	if c.GeolocationLocalAddress == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(c.GeolocationLocalAddress)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("geolocation_local_address %q is not an IP address", c.GeolocationLocalAddress)
	}
	return a.Unmap(), nil
}

// Validate checks the settings for values that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("data_dir is empty"))
	}
	if c.Listen == "" {
		errs = append(errs, errors.New("listen is empty"))
	}
	if c.IngestRetention < time.Minute {
		errs = append(errs, fmt.Errorf("ingest_retention %v is shorter than a minute", c.IngestRetention))
	}
	if c.UploadExpiry < time.Second {
		errs = append(errs, fmt.Errorf("upload_expiry %v is shorter than a second", c.UploadExpiry))
	}
	if _, err := c.Proxies(); err != nil {
		errs = append(errs, fmt.Errorf("trusted_proxies: %w", err))
	}
	if _, err := c.RemoteAllowed(); err != nil {
		errs = append(errs, fmt.Errorf("remote_allow: %w", err))
	}
	if _, err := c.GeolocationLocal(); err != nil {
		errs = append(errs, err)
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("public_url %q is not an absolute http(s) URL", c.PublicURL))
		}
	}
	if c.TileCacheMB < 0 || c.MemoryLimitMB < 0 || c.MaxUploadMB <= 0 || c.MaxBodyKB <= 0 || c.MaxURIBytes < 256 || c.MaxHeaderKB <= 0 {
		errs = append(errs, errors.New("sizes must be positive (tile_cache_mb may be 0; max_uri_bytes at least 256)"))
	}
	if c.RenderWorkers < 0 || c.RenderQueue < 0 || c.RenderCacheMB < 0 {
		errs = append(errs, errors.New("render_workers, render_queue and render_cache_mb may not be negative"))
	}
	if c.RenderTimeout <= 0 {
		errs = append(errs, fmt.Errorf("render_timeout %v must be positive", c.RenderTimeout))
	}
	if c.ReadTimeout <= 0 || c.WriteTimeout <= 0 || c.IdleTimeout <= 0 || c.UploadTimeout <= 0 {
		errs = append(errs, errors.New("timeouts must be positive"))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log_level %q is not debug, info, warn or error", c.LogLevel))
	}
	switch c.APIKeys {
	case APIKeysOff, APIKeysOptional, APIKeysRequired:
	default:
		errs = append(errs, fmt.Errorf("api_keys %q is not required, optional or off", c.APIKeys))
	}
	if c.IngestLease < time.Second {
		errs = append(errs, fmt.Errorf("ingest_lease %v is shorter than 1s", c.IngestLease))
	}
	if c.UsageFlushInterval < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("usage_flush_interval %v is shorter than 100ms", c.UsageFlushInterval))
	}
	if c.BillingDay < 1 || c.BillingDay > 28 {
		errs = append(errs, fmt.Errorf("billing_day %d is not between 1 and 28", c.BillingDay))
	}
	if c.StorageQuotaMB < 0 {
		errs = append(errs, fmt.Errorf("storage_quota_mb %d may not be negative", c.StorageQuotaMB))
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		errs = append(errs, errors.New("database_url is not a postgres:// URL"))
	}
	if c.StorageURL != "" {
		if u, err := url.Parse(c.StorageURL); err != nil || u.Scheme != "s3" || u.Host == "" {
			errs = append(errs, errors.New("storage_url is not an s3://bucket/prefix URL"))
		}
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log_format %q is not text or json", c.LogFormat))
	}
	return errors.Join(errs...)
}

// Keys lists the yaml keys of every setting, for documentation and flags.
func Keys() []string {
	t := reflect.TypeOf(Config{})
	keys := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		if k, ok := settingKey(t.Field(i)); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// settingKey returns the yaml key of a field; false for a field that is
// no setting (yaml:"-", set by commands only).
func settingKey(f reflect.StructField) (string, bool) {
	key := strings.Split(f.Tag.Get("yaml"), ",")[0]
	return key, key != "-"
}
