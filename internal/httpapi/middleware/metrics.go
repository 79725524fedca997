package middleware

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the server's Prometheus metrics.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	// Tiles counts tiles served, by format and by cache outcome.
	Tiles *prometheus.CounterVec

	counters  sync.Map // routeCode -> prometheus.Counter
	observers sync.Map // route -> prometheus.Observer
	tiles     sync.Map // "format/outcome" -> prometheus.Counter
}

// NewMetrics makes the registry with the process and Go collectors.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tessera_http_requests_total", Help: "HTTP requests by route pattern and status code.",
	}, []string{"route", "code"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "tessera_http_request_duration_seconds", Help: "HTTP request latencies by route pattern.",
		Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
	}, []string{"route"})
	m.Tiles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tessera_tiles_served_total", Help: "Tiles served by format and cache outcome (hit, miss).",
	}, []string{"format", "cache"})
	m.reg.MustRegister(m.requests, m.durations, m.Tiles,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Register adds more collectors (for example cache gauges).
func (m *Metrics) Register(cs ...prometheus.Collector) { m.reg.MustRegister(cs...) }

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// routeCode keys the cached counters.
type routeCode struct {
	route string
	code  int
}

// observe counts a request. The labelled children are cached so that the
// hot path does not hash label values.
func (m *Metrics) observe(route string, status int, d time.Duration) {
	c, ok := m.counters.Load(routeCode{route, status})
	if !ok {
		c, _ = m.counters.LoadOrStore(routeCode{route, status}, m.requests.WithLabelValues(route, strconv.Itoa(status)))
	}
	c.(prometheus.Counter).Inc()
	o, ok := m.observers.Load(route)
	if !ok {
		o, _ = m.observers.LoadOrStore(route, m.durations.WithLabelValues(route))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

// TileServed counts a tile served, by format and cache outcome.
func (m *Metrics) TileServed(format string, hit bool) {
	k := format + "/miss"
	if hit {
		k = format + "/hit"
	}
	c, ok := m.tiles.Load(k)
	if !ok {
		outcome := "miss"
		if hit {
			outcome = "hit"
		}
		c, _ = m.tiles.LoadOrStore(k, m.Tiles.WithLabelValues(format, outcome))
	}
	c.(prometheus.Counter).Inc()
}

func decodeBase64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}
