package account

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/usage"
)

// analyticsError is the body of a refused analytics query: the message and
// the code the spec names (period_not_found, account_over_limit,
// response_too_large, or invalid_parameter for a parameter that is
// missing or not understood).
type analyticsError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
}

// RegisterAnalytics adds the usage analytics routes (GET
// /v1/analytics/api_usage/timeline and /top) to the account route table.
// Failures other than refused queries are logged to log.
func RegisterAnalytics(t *route.Table, an *usage.Analytics, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	h := analyticsHandler{an: an, log: log}
	t.HandleFunc("GET "+Prefix+"/analytics/api_usage/timeline", h.timeline)
	t.HandleFunc("GET "+Prefix+"/analytics/api_usage/top", h.top)
}

type analyticsHandler struct {
	an  *usage.Analytics
	log *slog.Logger
}

// query reads the analytics parameters; csv tells whether format=csv. A
// CSV answer needs a group.
func (analyticsHandler) query(w http.ResponseWriter, r *http.Request, top bool) (q usage.Query, csv, ok bool) {
	v := r.URL.Query()
	q = usage.Query{Period: v.Get("period"), Classifier: v.Get("classifier"), Group: v.Get("group")}
	switch f := v.Get("format"); f {
	case "", "json":
	case "csv":
		csv = true
		if q.Group == "" {
			fail(w, usage.CodeInvalidParameter, "format=csv needs a group (request, session or export)")
			return q, csv, false
		}
	default:
		fail(w, usage.CodeInvalidParameter, "unknown format "+strconv.Quote(f)+" (json or csv)")
		return q, csv, false
	}
	if l := v.Get("limit"); top && l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			fail(w, usage.CodeInvalidParameter, "limit "+strconv.Quote(l)+" is not a whole number from 1 to "+strconv.Itoa(usage.MaxTopLimit))
			return q, csv, false
		}
		q.Limit = n
	}
	return q, csv, true
}

func (h analyticsHandler) timeline(w http.ResponseWriter, r *http.Request) {
	serveAnalytics(h, w, r, false, h.an.Timeline, usage.WriteTimelineCSV, "timeline.csv")
}

func (h analyticsHandler) top(w http.ResponseWriter, r *http.Request) {
	serveAnalytics(h, w, r, true, h.an.Top, usage.WriteTopCSV, "top.csv")
}

// serveAnalytics answers one analytics query: run's answer as JSON, or as
// CSV written by toCSV.
func serveAnalytics[T any](h analyticsHandler, w http.ResponseWriter, r *http.Request, top bool,
	run func(context.Context, usage.Query) (T, error), toCSV func(io.Writer, T) error, name string) {
	q, csv, ok := h.query(w, r, top)
	if !ok {
		return
	}
	v, err := run(r.Context(), q)
	if err != nil {
		h.failed(w, r, err)
		return
	}
	if !csv {
		respond.JSON(w, http.StatusOK, v)
		return
	}
	var buf bytes.Buffer
	if err := toCSV(&buf, v); err != nil {
		h.failed(w, r, err)
		return
	}
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	respond.Bytes(w, http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// fail answers 400 with the analytics error body.
func fail(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusBadRequest, analyticsError{Message: msg, Code: code})
}

// failed answers a refused query with 400 and anything else with 500.
func (h analyticsHandler) failed(w http.ResponseWriter, r *http.Request, err error) {
	var e *usage.Error
	if errors.As(err, &e) {
		fail(w, e.Code, e.Message)
		return
	}
	h.log.ErrorContext(r.Context(), "usage analytics", "err", err)
	respond.Fail(w, http.StatusInternalServerError, "could not read the usage counts")
}
