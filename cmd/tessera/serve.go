package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
)

// settingFlags registers a flag for each of the common settings; only the
// flags given on the command line are applied (over file and environment).
type settingFlags struct {
	fs     *flag.FlagSet
	values map[string]*string
}

func newSettingFlags(fs *flag.FlagSet, keys ...string) *settingFlags {
	sf := &settingFlags{fs: fs, values: map[string]*string{}}
	def := config.Default()
	for _, k := range keys {
		name := strings.ReplaceAll(k, "_", "-")
		help := fmt.Sprintf("setting %s (also TESSERA_%s)", k, strings.ToUpper(k))
		switch k {
		case "listen":
			help = fmt.Sprintf("HOST:PORT to listen on (default %s)", def.Listen)
		case "public_url":
			help = "absolute URL clients reach the server at (default: from the Host header)"
		}
		sf.values[k] = fs.String(name, "", help)
	}
	return sf
}

func (sf *settingFlags) apply(c *config.Config) error {
	var err error
	sf.fs.Visit(func(f *flag.Flag) {
		k := strings.ReplaceAll(f.Name, "-", "_")
		if v, ok := sf.values[k]; ok && err == nil {
			err = c.Set(k, *v)
		}
	})
	if err != nil {
		return err
	}
	return c.Validate()
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data directory (default ./data, or TESSERA_DATA_DIR)")
	cfgFile := fs.String("config", "", "configuration file (default DATA/tessera.yaml when present)")
	pprofAddr := fs.String("pprof", "", "HOST:PORT for Go's profiling endpoints (/debug/pprof/), off by default; never expose it publicly")
	sf := newSettingFlags(fs, "listen", "public_url", "tile_cache_mb", "log_level", "log_format", "access_log", "watch")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}
	if *pprofAddr != "" {
		if _, _, err := net.SplitHostPort(*pprofAddr); err != nil {
			return fmt.Errorf("serve: --pprof %q is not HOST:PORT", *pprofAddr)
		}
	}
	cfg, err := config.Load(*cfgFile, *dataDir, os.Getenv)
	if err != nil {
		return err
	}
	if err := sf.apply(&cfg); err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if os.Getenv("GOMEMLIMIT") == "" {
		limit := cfg.MemoryLimitMB
		if limit == 0 {
			// The caches, the renderer's decoded tiles and room to work.
			limit = cfg.TileCacheMB + cfg.RenderCacheMB + 192
		}
		debug.SetMemoryLimit(int64(limit) << 20)
	}
	start := time.Now()
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer srv.Close()

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	base := cfg.PublicURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	log.Info("tessera ready", "listen", ln.Addr().String(), "data", cfg.DataDir,
		"tilesets", len(srv.Catalog.List()), "startup", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(stdout, "\nTessera %s is serving %s on %s\n\nOpen %s/ for the list of maps and tilesets.\n\n", version, cfg.DataDir, base, base)
	if srv.TokenGenerated {
		fmt.Fprintf(stdout, "Admin API:   %s/v1/admin   (header  Authorization: Basic %s)\n", base, srv.AdminToken())
	} else {
		fmt.Fprintf(stdout, "Admin API:   %s/v1/admin   (credentials from the configuration)\n", base)
	}
	for _, m := range srv.Maps.List() {
		if m.Served() {
			fmt.Fprintf(stdout, "Map     %-12s %s/maps/%s/   (style: %s/maps/%s/style.json)\n", m.ID, base, m.ID, base, m.ID)
		}
	}
	for _, e := range srv.Catalog.List() {
		if e.Served() {
			fmt.Fprintf(stdout, "Tileset %-12s %s/tiles/%s/   (TileJSON: %s/tiles/%s/tiles.json)\n", e.Name, base, e.Name, base, e.Name)
		}
	}
	fmt.Fprintf(stdout, "Health:      %s/health   Metrics: %s/metrics\n\n", base, base)

	if *pprofAddr != "" {
		go func() {
			mux := http.NewServeMux()
			mux.HandleFunc("/debug/pprof/", pprof.Index)
			mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
			mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
			log.Info("profiling endpoints on", "addr", *pprofAddr)
			if err := http.ListenAndServe(*pprofAddr, mux); err != nil {
				log.Error("profiling listener", "err", err)
			}
		}()
	}

	// SIGHUP rescans the tiles directory.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				log.Info("SIGHUP: rescanning the tiles, maps and fonts directories")
				if err := srv.Rescan(ctx); err != nil {
					log.Error("rescan", "err", err)
				}
			}
		}
	}()
	return srv.Serve(ctx, ln)
}
