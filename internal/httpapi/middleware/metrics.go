package middleware

import (
	"encoding/base64"
	"net/http"
	"strconv"
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

func (m *Metrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.durations.WithLabelValues(route).Observe(d.Seconds())
}

func decodeBase64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}
