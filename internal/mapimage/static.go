package mapimage

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"image"
	"strings"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/render"
	"github.com/tesseramaps/tessera/internal/staticmap"
)

// fitMaxZoom is the zoom of an image fitted to a single point.
const fitMaxZoom = 16

// Static renders a static map: the map at the request's view, then its
// paths, markers and attribution. Identical concurrent requests (same map
// generation, same query) render once; static images are not cached.
func (s *Service) Static(ctx context.Context, m *catalog.Map, req *staticmap.Request) (Image, error) {
	if err := checkFormat(m, req.Format); err != nil {
		return Image{}, err
	}
	se, err := s.style(m)
	if err != nil {
		return Image{}, err
	}
	// Icons are fetched before the render takes a worker: a slow icon host
	// must not hold one.
	icons := make([]markerIcon, len(req.Markers))
	for i, mk := range req.Markers {
		icons[i], err = s.markerIcon(ctx, m, mk, req.Scale)
		if err != nil {
			return Image{}, err
		}
	}
	v := req.View(fitMaxZoom)
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
	data, err := s.queue.Do(ctx, fmt.Sprintf("static/%x", h.Sum64()), func(ctx context.Context) ([]byte, error) {
		img, err := s.render.Render(ctx, se.st, render.View{
			Center: [2]float64{v.Center[0], v.Center[1]}, Zoom: v.Zoom,
			Width: v.Width, Height: v.Height, PixelRatio: v.PixelRatio,
		}, s.res)
		if err != nil {
			return nil, err
		}
		drawOverlays(img, v, req, icons, se.attribution)
		return s.encode(img, m, req.Format)
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

func (s *Service) markerIcon(ctx context.Context, m *catalog.Map, mk staticmap.Marker, scale int) (markerIcon, error) {
	switch {
	case mk.Icon == "":
		return markerIcon{}, nil
	case strings.HasPrefix(mk.Icon, "http://") || strings.HasPrefix(mk.Icon, "https://"):
		img, err := s.icons.get(ctx, mk.Icon)
		return markerIcon{img: img, ratio: 1}, err
	}
	img, ratio, err := s.spriteIcon(ctx, m, mk.Icon, scale)
	return markerIcon{img: img, ratio: ratio}, err
}

// drawOverlays draws the request's paths, then its markers (later ones on
// top), then the attribution.
func drawOverlays(img *image.RGBA, v staticmap.View, req *staticmap.Request, icons []markerIcon, attribution string) {
	o := newOverlay(img, v)
	for _, p := range req.Paths {
		o.path(p)
	}
	for i, mk := range req.Markers {
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
}
