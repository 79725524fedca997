package mapimage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/panics"
	"github.com/tesseramaps/tessera/internal/render"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/staticmap"
	"github.com/tesseramaps/tessera/internal/style"
)

// fitMaxZoom is the deepest zoom of a fitted image (a single point): a
// street's scale, or the map's data's deepest zoom when it ends before.
const fitMaxZoom = 16

// Static renders a static map: the map at the request's view, then its
// paths, markers and attribution. Identical concurrent requests (same map
// generation, same query) render once; static images are not cached.
// Every map's static images are png, jpg or webp (spec 002), whatever the
// format of its tiles.
func (s *Service) Static(ctx context.Context, m *catalog.Map, req *staticmap.Request) (Image, error) {
	se, err := s.style(m)
	if err != nil {
		return Image{}, err
	}
	// Icons are fetched before the render takes a worker (a slow icon host
	// must not hold one), at once, within the render's budget: what they
	// take is taken from the render's deadline.
	start := time.Now()
	icons, err := s.markerIcons(ctx, m, req)
	if err != nil {
		return Image{}, err
	}
	left := s.timeout - time.Since(start)
	if left <= 0 {
		return Image{}, s.iconBudgetSpent()
	}
	v := req.View(se.fitZoom)
	// Identical requests share a render: the key is the map's generations
	// and the request's values (JSON, not %#v, which would print the
	// addresses of its optional colours and tell equal requests apart).
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return Image{}, fmt.Errorf("static map key: %w", err)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\x00", m.ID, se.gen, se.catalog, se.res)
	h.Write(reqJSON)
	data, err := s.queue.DoWithin(ctx, fmt.Sprintf("static/%x", h.Sum64()), left, func(ctx context.Context) ([]byte, error) {
		img, err := s.draw(ctx, se.st, render.View{
			Center: [2]float64{v.Center[0], v.Center[1]}, Zoom: v.Zoom,
			Width: v.Width, Height: v.Height, PixelRatio: v.PixelRatio,
		}, nil)
		if err != nil {
			return nil, err
		}
		if err := drawOverlays(ctx, img, v, req, icons, se.attribution); err != nil {
			if IsRequestError(err) { // the overlays' own work bound
				s.workBound.Add(1)
			}
			return nil, err
		}
		return s.encode(ctx, img, m, req.Format)
	})
	if err != nil {
		return Image{}, err
	}
	return Image{Data: data, MediaType: req.Format.MediaType()}, nil
}

// markerIcon is a marker's picture: nil img means the default pin.
type markerIcon struct {
	img   image.Image
	ratio float64 // pixels of img per CSS pixel
}

// maxIconFetches is how many marker icons of one request are read at once.
const maxIconFetches = 8

// markerIcons reads the markers' icons: each distinct icon once, at most
// maxIconFetches at once, all within the render's budget (s.timeout). The
// first failing icon in the request's order is the error; icons not all
// read within the budget are a RequestError naming it.
func (s *Service) markerIcons(ctx context.Context, m *catalog.Map, req *staticmap.Request) ([]markerIcon, error) {
	icons := make([]markerIcon, len(req.Markers))
	uses := map[string][]int{} // icon -> the markers drawing it
	var order []string
	for i, mk := range req.Markers {
		if mk.Icon == "" {
			continue
		}
		if _, ok := uses[mk.Icon]; !ok {
			order = append(order, mk.Icon)
		}
		uses[mk.Icon] = append(uses[mk.Icon], i)
	}
	if len(order) == 0 {
		return icons, nil
	}
	budget, cancelBudget := context.WithTimeoutCause(ctx, s.timeout, errIconBudget)
	defer cancelBudget()
	fctx, stop := context.WithCancel(budget) // stopped at the first failure
	defer stop()
	errs := make([]error, len(order))
	sem := make(chan struct{}, maxIconFetches)
	var wg sync.WaitGroup
	var carrier panics.Carrier
feed:
	for k, name := range order {
		select {
		case sem <- struct{}{}:
		case <-fctx.Done():
			break feed
		}
		carrier.Go(&wg, func() {
			defer func() { <-sem }()
			ic, err := s.markerIcon(fctx, m, name, req.Scale)
			if err != nil {
				errs[k] = err
				stop()
				return
			}
			for _, i := range uses[name] {
				icons[i] = ic
			}
		})
	}
	wg.Wait()
	carrier.Rethrow()
	for _, err := range errs {
		if IsRequestError(err) {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the client went away
	}
	if context.Cause(budget) == errIconBudget {
		return nil, s.iconBudgetSpent()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return icons, nil
}

// errIconBudget ends the reading of marker icons at the render's budget.
var errIconBudget = errors.New("marker icons past the render's budget")

func (s *Service) iconBudgetSpent() error {
	return badRequest("markers icons: not all read within %v, the time allowed for the whole picture (icons by URL that answer slowly, or too many of them)", s.timeout)
}

// markerIcon reads one marker's icon.
func (s *Service) markerIcon(ctx context.Context, m *catalog.Map, name string, scale int) (markerIcon, error) {
	if strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://") {
		img, err := s.icons.get(ctx, name)
		return markerIcon{img: img, ratio: 1}, err
	}
	img, ratio, err := s.spriteIcon(ctx, m, name, scale)
	return markerIcon{img: img, ratio: ratio}, err
}

// overlayWork bounds the drawing of a picture's paths and markers, in
// units of work (about a pixel shaded) per pixel of the picture: a path
// filled and stroked across the whole picture costs about two.
const overlayWork = 48

// drawOverlays draws the request's paths, then its markers (later ones on
// top), then the attribution, within ctx and within overlayWork: paths and
// markers that cover the picture more often than that are the request's
// fault (a RequestError), and an ended ctx stops the drawing with its
// cause.
func drawOverlays(ctx context.Context, img *image.RGBA, v staticmap.View, req *staticmap.Request, icons []markerIcon, attribution string) error {
	o := newOverlay(img, v)
	budget := raster.NewBudget(ctx.Done(), overlayWork*int64(len(img.Pix)/4))
	o.cv.Budget, o.mask.Budget = budget, budget
	for _, p := range req.Paths {
		if budget.Stopped() {
			break
		}
		o.path(p)
	}
	for i, mk := range req.Markers {
		if budget.Stopped() {
			break
		}
		x, y := v.Project(mk.Point)
		x, y = x*o.ratio, y*o.ratio
		scale := mk.Scale
		if scale <= 0 {
			scale = 1
		}
		ic := icons[i]
		if ic.img == nil {
			short := len([]rune(mk.Text)) <= 3
			text := ""
			if short {
				text = mk.Text
			}
			o.defaultMarker(x, y, scale, text)
			if !short {
				o.label(mk.Text, x+(pinWidth/2+3)*scale*o.ratio, y-(pinHeight-pinWidth/2)*scale*o.ratio)
			}
			continue
		}
		anchor := mk.Anchor
		if anchor == "" {
			anchor = "center"
		}
		o.icon(ic.img, x, y, scale, anchor, ic.ratio)
		if mk.Text != "" {
			w := float64(ic.img.Bounds().Dx()) * scale * o.ratio / ic.ratio
			ax, _ := anchorOffset(anchor, w, 0)
			o.label(mk.Text, x-ax+w+3*o.ratio, y)
		}
	}
	o.attribution(attribution, req.Attribution)
	switch {
	case budget.Exceeded():
		return badRequest("the paths and markers cover the picture more than %d times over: draw fewer, narrower or smaller ones", overlayWork)
	case budget.Stopped():
		return fmt.Errorf("static map overlays: %w", context.Cause(ctx))
	}
	return nil
}

// fitZoom is the deepest zoom an image is fitted at for st: fitMaxZoom, or
// the deepest zoom its tiled sources have data for when that is less (a
// source's maxzoom in the style, else its tileset's on this server;
// remote TileJSONs are not read for it). A style without tiled sources
// of known depth fits at fitMaxZoom.
func (s *Service) fitZoom(st *style.Style) float64 {
	deepest := -1.0
	for _, src := range st.Sources {
		switch src.Type {
		case "vector", "raster", "raster-dem":
		default:
			continue
		}
		z, ok := s.sourceMaxZoom(src)
		if ok {
			deepest = math.Max(deepest, z)
		}
	}
	if deepest < 0 {
		return fitMaxZoom
	}
	return math.Min(fitMaxZoom, deepest)
}

// sourceMaxZoom is a tiled source's deepest zoom: the style's maxzoom, else
// the tileset's of a source on this server (a /tiles/NAME/... URL).
func (s *Service) sourceMaxZoom(src *style.Source) (float64, bool) {
	if src.MaxZoom != nil {
		return *src.MaxZoom, true
	}
	ref := src.URL
	if ref == "" && len(src.Tiles) > 0 {
		ref = src.Tiles[0]
	}
	rest, ok := strings.CutPrefix(ref, "/tiles/")
	if !ok {
		return 0, false
	}
	name, _, _ := strings.Cut(rest, "/")
	name, _, _ = strings.Cut(name, "?")
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	e, ok := s.res.entry(name)
	if !ok {
		return 0, false
	}
	return float64(e.Info.MaxZoom), true
}
