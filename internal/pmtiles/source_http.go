package pmtiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HTTPOptions configures an HTTPSource.
type HTTPOptions struct {
	// Client sends the requests; nil means a client with a 60 s timeout.
	Client *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header
}

var defaultHTTPClient = &http.Client{
	Timeout: 60 * time.Second,
	Transport: func() http.RoundTripper {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 32
		return t
	}(),
}

// HTTPSource reads a remote archive with HTTP range requests
// (Range: bytes=a-b, answered by 206 Partial Content). It remembers the ETag
// of the first response and sends it as If-Match on later requests; a 412
// answer or a different ETag (or size) is reported as ErrChanged.
type HTTPSource struct {
	url string
	r   *remote
}

// NewHTTPSource returns a source for an http or https URL. No request is made
// until the first read.
func NewHTTPSource(rawURL string, opts HTTPOptions) (*HTTPSource, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: parse URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("pmtiles: %q is not an http(s) URL", rawURL)
	}
	client := opts.Client
	if client == nil {
		client = defaultHTTPClient
	}
	extra := opts.Header.Clone()
	s := &HTTPSource{url: u.String()}
	s.r = newRemote(client, u.Redacted(), func(ctx context.Context, h http.Header) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
		if err != nil {
			return nil, err
		}
		for k, v := range extra {
			req.Header[k] = v
		}
		for k, v := range h {
			req.Header[k] = v
		}
		return req, nil
	})
	return s, nil
}

// ReadRange implements RangeSource.
func (s *HTTPSource) ReadRange(ctx context.Context, offset, length int64) ([]byte, error) {
	return s.r.readRange(ctx, offset, length)
}

// ETag implements RangeSource.
func (s *HTTPSource) ETag() string { return s.r.etagValue() }

// Size implements RangeSource (-1 before the first read).
func (s *HTTPSource) Size() int64 { return s.r.sizeValue() }

// Close implements RangeSource. Connections belong to the http.Client, so
// there is nothing to release.
func (s *HTTPSource) Close() error { return nil }

// remote is the range-reading logic of the HTTP source.
type remote struct {
	client     *http.Client
	desc       string
	newRequest func(ctx context.Context, h http.Header) (*http.Request, error)
	version
}

// version is the version of a remote archive seen so far (its ETag and
// size), shared by the HTTP and S3 sources.
type version struct {
	mu   sync.Mutex
	etag string
	size int64
}

func newRemote(client *http.Client, desc string, nr func(context.Context, http.Header) (*http.Request, error)) *remote {
	return &remote{client: client, desc: desc, newRequest: nr, version: version{size: -1}}
}

func (r *version) etagValue() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.etag
}

func (r *version) sizeValue() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.size
}

// observe records the version seen in a response and reports whether it
// differs from the one seen before.
func (r *version) observe(etag string, size int64) (changed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if etag != "" {
		if r.etag != "" && r.etag != etag {
			changed = true
		}
		r.etag = etag
	}
	if size >= 0 {
		if r.size >= 0 && r.size != size {
			changed = true
		}
		r.size = size
	}
	return changed
}

// forget clears the remembered version after a failed If-Match so the next
// request learns the new one.
func (r *version) forget(etag string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.etag == etag {
		r.etag = ""
		r.size = -1
	}
}

func (r *remote) readRange(ctx context.Context, offset, length int64) ([]byte, error) {
	if err := checkRange(offset, length); err != nil {
		return nil, err
	}
	if length == 0 {
		return nil, nil
	}
	etag := r.etagValue()
	h := http.Header{}
	h.Set("Range", fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))
	h.Set("Accept-Encoding", "identity")
	if etag != "" && !strings.HasPrefix(etag, "W/") && !strings.HasPrefix(etag, "lm:") {
		h.Set("If-Match", etag)
	}
	req, err := r.newRequest(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: %s: build request: %w", r.desc, err)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: %s: %w", r.desc, err)
	}
	defer resp.Body.Close()

	version := resp.Header.Get("ETag")
	if version == "" {
		if lm := resp.Header.Get("Last-Modified"); lm != "" {
			version = "lm:" + lm
		}
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && ce != "identity" && resp.StatusCode/100 == 2 {
		return nil, fmt.Errorf("pmtiles: %s: archive served with Content-Encoding %q; byte ranges need the stored bytes", r.desc, ce)
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
		start, end, total, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err != nil {
			return nil, fmt.Errorf("pmtiles: %s: %w", r.desc, err)
		}
		if start != offset || end < start || end-start+1 > length {
			return nil, fmt.Errorf("pmtiles: %s: asked bytes %d-%d, got %d-%d", r.desc, offset, offset+length-1, start, end)
		}
		if r.observe(version, total) {
			return nil, fmt.Errorf("pmtiles: %s: %w (ETag or size differs)", r.desc, ErrChanged)
		}
		n := end - start + 1
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, fmt.Errorf("pmtiles: %s: read body: %w", r.desc, err)
		}
		return b, nil
	case http.StatusOK:
		// The server ignored Range: acceptable only at the start of a small
		// body; never read more than asked.
		if offset != 0 {
			return nil, fmt.Errorf("pmtiles: %s: server does not support range requests (200 instead of 206)", r.desc)
		}
		if r.observe(version, resp.ContentLength) {
			return nil, fmt.Errorf("pmtiles: %s: %w (ETag or size differs)", r.desc, ErrChanged)
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, length))
		if err != nil {
			return nil, fmt.Errorf("pmtiles: %s: read body: %w", r.desc, err)
		}
		return b, nil
	case http.StatusPreconditionFailed:
		r.forget(etag)
		return nil, fmt.Errorf("pmtiles: %s: %w (412 Precondition Failed)", r.desc, ErrChanged)
	case http.StatusRequestedRangeNotSatisfiable:
		// Content-Range: bytes */total
		if cr := resp.Header.Get("Content-Range"); strings.HasPrefix(cr, "bytes */") {
			if total, err := strconv.ParseInt(cr[len("bytes */"):], 10, 64); err == nil && total >= 0 {
				if r.observe(version, total) {
					return nil, fmt.Errorf("pmtiles: %s: %w (size differs)", r.desc, ErrChanged)
				}
				if offset >= total {
					return nil, nil
				}
			}
		}
		return nil, fmt.Errorf("pmtiles: %s: range %d+%d not satisfiable", r.desc, offset, length)
	case http.StatusNotFound:
		return nil, fmt.Errorf("pmtiles: %s: %w (404)", r.desc, fs.ErrNotExist)
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return nil, fmt.Errorf("pmtiles: %s: unexpected status %s: %s", r.desc, resp.Status, strings.TrimSpace(string(msg)))
}

// parseContentRange parses "bytes start-end/total" (total may be "*": -1).
func parseContentRange(s string) (start, end, total int64, err error) {
	bad := errors.New("bad Content-Range " + strconv.Quote(s))
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, 0, bad
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, 0, bad
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, bad
	}
	if start, err = strconv.ParseInt(a, 10, 64); err != nil || start < 0 {
		return 0, 0, 0, bad
	}
	if end, err = strconv.ParseInt(b, 10, 64); err != nil || end < start {
		return 0, 0, 0, bad
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil || total <= end {
			return 0, 0, 0, bad
		}
	}
	return start, end, total, nil
}
