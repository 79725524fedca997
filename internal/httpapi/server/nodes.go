package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/changefeed"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/store"
)

// newFeed makes the change feed's listener when the state is in
// PostgreSQL (other nodes may share it); nil on SQLite, where this node is
// the only one and applies its own changes as it makes them.
func (s *Server) newFeed() *changefeed.Listener {
	if s.db.Dialect() != store.Postgres {
		return nil
	}
	l := changefeed.NewListener(s.cfg.DatabaseURL, s.db.Node(), s.reloadAll, s.log)
	l.Handle(changefeed.APIKey, func(ctx context.Context, ev changefeed.Event) error {
		if ev.ID == "" {
			return s.keys.Load(ctx)
		}
		return s.keys.LoadOne(ctx, ev.ID)
	})
	l.Handle(changefeed.Tileset, func(ctx context.Context, ev changefeed.Event) error {
		if ev.ID == "" {
			return s.Catalog.Sync(ctx)
		}
		s.fetchFeatures(ctx, ev.ID)
		return s.Catalog.SyncOne(ctx, ev.ID)
	})
	l.Handle(changefeed.Map, func(ctx context.Context, ev changefeed.Event) error {
		if ev.ID != "" && s.mirror != nil && catalog.ValidName(ev.ID) == nil {
			// The style may have been written through that node (it is
			// in the shared storage then): fetched when it is another
			// version, and read again.
			if _, err := s.mirror.Fetch(ctx, MapsDir+"/"+ev.ID+"/"+catalog.StyleFile); err != nil {
				return err
			}
			if err := s.Maps.Scan(ctx); err != nil {
				return err
			}
		}
		return s.Maps.Sync(ctx)
	})
	// Service tokens are checked in the database on every account call:
	// a revocation holds on every node at once, nothing is cached.
	return l
}

// reloadAll reloads every snapshot from the state database: after the
// change feed's connection came back, when notifications may have been
// missed.
func (s *Server) reloadAll(ctx context.Context) error {
	return errors.Join(s.keys.Load(ctx), s.Catalog.Sync(ctx), s.Maps.Sync(ctx))
}

// follow keeps this node's snapshots in line with the other nodes': the
// change feed on PostgreSQL, the keys' polling otherwise (a SQLite file
// has one node, but its keys may be changed by a tool meanwhile).
func (s *Server) follow(ctx context.Context) {
	if s.feed == nil {
		go s.keys.Watch(ctx, KeyRefresh)
		return
	}
	// New loaded everything before the listener was up: the first
	// connection reloads too, so nothing committed meanwhile is missed.
	go s.feed.Run(ctx, true)
}

// Readiness is the answer of GET /ready.
type Readiness struct {
	// Status is "ready", or "degraded" when the state database cannot be
	// reached or the change feed is down: the node then keeps serving
	// what it has loaded, which may be stale.
	Status string `json:"status"`
	// Database is "ok" or why the state database did not answer.
	Database string `json:"database"`
	// ChangeFeed is "listening", "down" (reconnecting) or "none" (SQLite:
	// one node).
	ChangeFeed string `json:"changeFeed"`
	// Storage is "ok", "none" (no storage_url) or why the shared storage
	// did not answer (the node is then degraded: it serves what its data
	// directory holds).
	Storage string `json:"storage"`
	// Loaded tells that the snapshot (keys, tilesets, maps) was loaded.
	Loaded bool `json:"loaded"`
}

// readyTimeout bounds the database check of a readiness request.
const readyTimeout = 2 * time.Second

// Ready checks whether this node can serve current answers.
func (s *Server) Ready(ctx context.Context) Readiness {
	r := Readiness{Status: "ready", Database: "ok", ChangeFeed: "none", Loaded: true}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		r.Status, r.Database = "degraded", err.Error()
	}
	var ok bool
	if r.Storage, ok = s.storagePing(ctx); !ok {
		r.Status = "degraded"
	}
	if s.feed != nil {
		r.ChangeFeed = "listening"
		if !s.feed.Connected() {
			r.Status, r.ChangeFeed = "degraded", "down"
		}
	}
	return r
}

// ready answers GET /ready: 200 when ready, 503 when degraded (a load
// balancer then prefers other nodes; this one keeps serving).
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	rd := s.Ready(r.Context())
	code := http.StatusOK
	if rd.Status != "ready" {
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, code, rd)
}

// nodeMetrics are the state database's and the change feed's counters.
func (s *Server) nodeMetrics() []prometheus.Collector {
	cs := []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_db_calls_total", Help: "Statements sent to the state database (queries, executions, transactions, announcements)."},
			func() float64 { return float64(s.db.Calls()) }),
		s3CallsCollector{calls: s.s3calls, desc: prometheus.NewDesc("tessera_s3_calls_total",
			"S3 calls by operation (storage and remote PMTiles archives), one per call whatever the SDK's retries.", []string{"operation"}, nil)},
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_changes_unannounced_total", Help: "Changes committed whose NOTIFY failed (other nodes see them at their next full reload)."},
			func() float64 { return float64(s.db.Unannounced()) }),
	}
	if s.feed != nil {
		cs = append(cs,
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_changes_received_total", Help: "Changes made by other nodes and applied here."},
				func() float64 { return float64(s.feed.Received()) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tessera_change_feed_reconnects_total", Help: "Reconnections of the change feed (each one reloads every snapshot)."},
				func() float64 { return float64(s.feed.Reconnects()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tessera_change_feed_up", Help: "1 while the change feed listens."},
				func() float64 {
					if s.feed.Connected() {
						return 1
					}
					return 0
				}),
		)
	}
	return cs
}

// s3CallsCollector exports the S3 calls counted, one series per operation.
type s3CallsCollector struct {
	calls *blob.Calls
	desc  *prometheus.Desc
}

func (c s3CallsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c s3CallsCollector) Collect(ch chan<- prometheus.Metric) {
	for op, n := range c.calls.Snapshot() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), op)
	}
}
