package mapimage

import (
	"context"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/render"
)

// GetMap renders a WMS GetMap request: each map (layer) in the order
// given, drawn over the ones before, on the request's grid; flattened onto
// its BGCOLOR unless TRANSPARENT.
func (s *Service) GetMap(ctx context.Context, maps []*catalog.Map, req *ogc.GetMapRequest) (Image, error) {
	styles := make([]styleEntry, len(maps))
	h := fnv.New64a()
	for i, m := range maps {
		se, err := s.style(m)
		if err != nil {
			return Image{}, err
		}
		styles[i] = se
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", m.ID, se.gen, se.catalog)
	}
	fmt.Fprintf(h, "%#v", *req)
	plan := req.Plan()
	data, err := s.queue.Do(ctx, fmt.Sprintf("wms/%x", h.Sum64()), func(ctx context.Context) ([]byte, error) {
		var img *image.RGBA
		v := render.View{Center: [2]float64{plan.CenterLon, plan.CenterLat}, Zoom: plan.Zoom, Width: plan.Width, Height: plan.Height, PixelRatio: 1}
		var out *render.Output
		if plan.Resample {
			// The map is drawn in Web Mercator and resampled, its labels
			// and icons placed and drawn on the request's grid itself.
			out = &render.Output{Width: req.Width, Height: req.Height, Project: req.ToPixel,
				Warp: func(view *image.RGBA) *image.RGBA { return req.Warp(view, plan) }}
		}
		for _, se := range styles {
			layer, err := s.draw(ctx, se.st, v, out)
			if err != nil {
				return nil, err
			}
			if img == nil {
				img = layer
			} else {
				draw.Draw(img, img.Rect, layer, image.Point{}, draw.Over)
			}
		}
		if !req.Transparent {
			flatten(img, req.BGColor)
		}
		opt := imageenc.Options{Format: req.Format, Background: color.RGBA(req.BGColor)}
		if len(maps) > 0 {
			opt.Quality = maps[0].Quality
		}
		return encodeWith(ctx, img, opt)
	})
	if err != nil {
		return Image{}, err
	}
	return Image{Data: data, MediaType: req.Format.MediaType()}, nil
}

// flatten lays the picture over the opaque colour bg, in place (no second
// picture of the largest size): each premultiplied pixel p becomes
// p + bg * (1 - alpha of p).
func flatten(img *image.RGBA, bg color.RGBA) {
	b := img.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]
		for i := 0; i+3 < len(row); i += 4 {
			a := row[i+3]
			if a == 255 {
				continue
			}
			k := uint32(255 - a)
			row[i] += uint8((uint32(bg.R)*k + 127) / 255)
			row[i+1] += uint8((uint32(bg.G)*k + 127) / 255)
			row[i+2] += uint8((uint32(bg.B)*k + 127) / 255)
			row[i+3] = 255
		}
	}
}
