// Package loadmix is the load test of a map server under hostile requests
// (issue 17): it measures plain requests (cached and simple tiles) on a
// quiet server, then again while other clients send hostile ones (huge
// static maps with many paths and markers, WMS pictures of the largest
// size, markers whose icons come from a slow server), and records how each
// hostile request ended. Everything is bounded in count and time, and only
// servers on the loopback network are sent anything. A test of
// internal/httpapi/server and bench/hostile use it.
package loadmix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/staticmap"
)

// Plan is one run.
type Plan struct {
	// Base is the server's root URL; its host must be a loopback address.
	Base string
	// Plain and Hostile are the paths (with queries) sent; Hostile paths
	// are sent in turn, "{n}" (or its URL escape) in them replaced by the
	// request's number, so that no two requests share a render.
	Plain, Hostile []string
	// PlainClients send PlainRequests in the quiet phase, and in the
	// loaded phase as long as the hostile requests last (at most
	// LoadedRequests, default 50 times PlainRequests); HostileClients
	// send HostileRequests in all.
	PlainClients, PlainRequests, LoadedRequests int
	HostileClients, HostileRequests             int
	// MaxTime bounds the whole run (default one minute).
	MaxTime time.Duration
}

// Result is one request's outcome.
type Result struct {
	Path   string
	Status int // 0: no answer (Err)
	Took   time.Duration
	Err    error
}

// Report is what a run measured.
type Report struct {
	// The plain requests of each phase: on the quiet server, under the
	// hostile load, and on the quiet server again once the hostile
	// requests were answered (PlainRequests again), so that a machine
	// whose own load changed during the run shows it.
	Quiet, Loaded, After []Result
	Hostile              []Result
}

// Run sends the plan's requests with client.
func Run(ctx context.Context, client *http.Client, p Plan) (Report, error) {
	if err := checkLoopback(p.Base); err != nil {
		return Report{}, err
	}
	if p.MaxTime <= 0 {
		p.MaxTime = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, p.MaxTime)
	defer cancel()
	if p.LoadedRequests <= 0 {
		p.LoadedRequests = 50 * p.PlainRequests
	}
	var rep Report
	rep.Quiet = plain(ctx, client, p, p.PlainRequests, nil)

	// The hostile clients start; the plain ones follow once every
	// hostile client has a request in flight, and go on until the last
	// hostile request is answered.
	var inflight, sent atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range p.HostileClients {
		wg.Go(func() {
			for ctx.Err() == nil {
				n := sent.Add(1)
				if n > int64(p.HostileRequests) {
					return
				}
				path := strings.NewReplacer("{n}", fmt.Sprint(n), "%7Bn%7D", fmt.Sprint(n)).Replace(p.Hostile[int(n-1)%len(p.Hostile)])
				inflight.Add(1)
				r := get(ctx, client, p.Base+path, path)
				inflight.Add(-1)
				mu.Lock()
				rep.Hostile = append(rep.Hostile, r)
				mu.Unlock()
			}
		})
	}
	for inflight.Load() < int64(min(p.HostileClients, p.HostileRequests)) && ctx.Err() == nil {
		time.Sleep(time.Millisecond) // the hostile clients are starting
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	rep.Loaded = plain(ctx, client, p, p.LoadedRequests, done)
	<-done
	rep.After = plain(ctx, client, p, p.PlainRequests, nil)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadmix: the run passed %v: %w", p.MaxTime, err)
	}
	return rep, nil
}

// plain sends at most n plain requests, and stops early when until (if
// not nil) is closed; it returns those sent.
func plain(ctx context.Context, client *http.Client, p Plan, n int, until <-chan struct{}) []Result {
	out := make([]Result, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	over := func() bool {
		select {
		case <-until:
			return true
		default:
			return ctx.Err() != nil
		}
	}
	for range p.PlainClients {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && !over(); i = int(next.Add(1) - 1) {
				path := p.Plain[i%len(p.Plain)]
				out[i] = get(ctx, client, p.Base+path, path)
			}
		})
	}
	wg.Wait()
	sent := out[:0]
	for _, r := range out {
		if r.Path != "" {
			sent = append(sent, r)
		}
	}
	return sent
}

func get(ctx context.Context, client *http.Client, u, path string) Result {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Result{Path: path, Err: err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return Result{Path: path, Took: time.Since(start), Err: err}
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return Result{Path: path, Status: resp.StatusCode, Took: time.Since(start), Err: err}
}

// checkLoopback refuses a base URL whose host is not a loopback address.
func checkLoopback(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("loadmix: base %q: %w", base, err)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("loadmix: %q is not a loopback address: load is sent to this machine only", host)
	}
	return nil
}

// Percentile returns the q-th quantile (0..1) of the results' times,
// nearest rank.
func Percentile(rs []Result, q float64) time.Duration {
	if len(rs) == 0 {
		return 0
	}
	ts := make([]time.Duration, len(rs))
	for i, r := range rs {
		ts[i] = r.Took
	}
	slices.Sort(ts)
	k := int(math.Ceil(q*float64(len(ts)))) - 1
	return ts[max(0, min(len(ts)-1, k))]
}

// Statuses counts the results by status (0: no answer).
func Statuses(rs []Result) map[int]int {
	m := map[int]int{}
	for _, r := range rs {
		m[r.Status]++
	}
	return m
}

// Longest is the longest time of the results.
func Longest(rs []Result) time.Duration {
	var d time.Duration
	for _, r := range rs {
		d = max(d, r.Took)
	}
	return d
}

// FirstError returns the first result without an answer, if any.
func FirstError(rs []Result) error {
	for _, r := range rs {
		if r.Err != nil {
			return fmt.Errorf("%s: %w", r.Path, r.Err)
		}
	}
	return nil
}

// HostilePaths are the hostile requests to map mapID, each a template
// whose "{n}" makes every request different: a 2048x2048@2x
// static map with wide filled paths and many labelled markers (near the
// 8,192-byte URI limit), a WMS picture of the largest size (side pixels,
// drawn by layer), and a static map whose 20 marker icons come from
// icons (an icon server that answers slowly or never).
func HostilePaths(mapID, layer string, side int, icons string) []string {
	q := url.Values{}
	for i := range 6 {
		var pts []orb.Point
		for k := range 50 {
			pts = append(pts, orb.Point{-170 + float64(k)*5.7, float64((k*37+i*11)%140 - 70)})
		}
		q.Add("path", "stroke:rgba(200,0,0,0.6)|width:40|fill:rgba(0,0,200,0.2)|enc:"+staticmap.EncodePolyline(pts))
	}
	var marks []string
	for i := range 30 {
		marks = append(marks, fmt.Sprintf("%d,%d,marker %d-{n}", -160+i*10, (i*29)%120-60, i))
	}
	q.Add("markers", strings.Join(marks, "|"))
	static := "/maps/" + mapID + "/static/auto/2048x2048@2x.png?" + q.Encode()

	wms := fmt.Sprintf("/maps/%s/wms?SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=%s&STYLES=&FORMAT=image/png&CRS=EPSG:3857&BBOX=-12000000,-12000000,12000000.{n}1,12000000&WIDTH=%d&HEIGHT=%d",
		mapID, layer, side, side)

	iq := url.Values{}
	for i := range 20 {
		iq.Add("markers", fmt.Sprintf("icon:%s/icon%d-{n}.png|%d,%d", icons, i, i*5, i*3))
	}
	slow := "/maps/" + mapID + "/static/0,0,2/1024x1024.png?" + iq.Encode()
	return []string{static, wms, slow}
}

// IconServer serves a small PNG at every path after Delay, or never (when
// Delay is negative: it holds the request until the client gives up), on
// a loopback port.
type IconServer struct {
	URL   string
	srv   *http.Server
	Delay time.Duration
}

// iconPNG is a 4x4 opaque PNG.
var iconPNG = func() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = 0xc0
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // a fixed in-memory image always encodes
	}
	return buf.Bytes()
}()

// StartIconServer starts an icon server on 127.0.0.1.
func StartIconServer(delay time.Duration) (*IconServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loadmix: icon server: %w", err)
	}
	s := &IconServer{URL: "http://" + ln.Addr().String(), Delay: delay}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Delay < 0 {
			<-r.Context().Done()
			return
		}
		select {
		case <-time.After(s.Delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(iconPNG)
	})}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the icon server.
func (s *IconServer) Close() error {
	if err := s.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
