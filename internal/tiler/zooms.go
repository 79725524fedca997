package tiler

import (
	"math"
	"sort"
)

// DefaultMaxZoomCap is the highest zoom DefaultZooms picks.
const DefaultMaxZoomCap = 14

// DefaultZooms picks a zoom range for an upload: the minimum is 0, the
// maximum is the zoom at which the data's detail shows, capped at
// DefaultMaxZoomCap:
//   - points: the lowest zoom at which 95% of the distinct positions fall
//     in distinct pixels (of 256-pixel tiles);
//   - lines and polygons: the zoom at which the finest tenth of the features
//     spans at least 4 pixels, and at which the median distance between
//     consecutive vertices is at least half a pixel;
//   - at least two zooms beyond the one at which the whole data set fits in
//     one tile;
//   - but no higher than the zoom at which the estimated number of tiles
//     (polygon bounding box areas, line lengths and points in tiles) would
//     exceed MaxTilesEstimate.
func DefaultZooms(layers []Layer) (minZoom, maxZoom int) {
	var points []pt
	var sizes, segs []float64
	var area, length float64 // world units: polygon bbox areas, line lengths
	all := emptyBox()
	for _, l := range layers {
		for _, f := range l.Features {
			if f.Geometry == nil || !validGeometry(f.Geometry) {
				continue
			}
			var p, ln, pg item
			collect(f.Geometry, &p, &ln, &pg)
			for _, q := range p.pts {
				all.add(q)
			}
			points = append(points, p.pts...)
			shape := func(parts [][]pt, polygon bool) {
				b := emptyBox()
				for _, part := range parts {
					for i, q := range part {
						b.add(q)
						all.add(q)
						if i > 0 {
							d := math.Hypot(q.x-part[i-1].x, q.y-part[i-1].y)
							segs = append(segs, d)
							if !polygon {
								length += d
							}
						}
					}
				}
				sizes = append(sizes, math.Max(b.maxX-b.minX, b.maxY-b.minY))
				if polygon {
					area += (b.maxX - b.minX) * (b.maxY - b.minY)
				}
			}
			if len(ln.lines) > 0 {
				shape(ln.lines, false)
			}
			for _, poly := range pg.polys {
				shape(poly[:1], true)
			}
		}
	}
	if all.minX > all.maxX {
		return 0, 0
	}
	z := 0
	// Whole-extent rule.
	if size := math.Max(all.maxX-all.minX, all.maxY-all.minY); size > 0 {
		z = max(z, int(math.Floor(math.Log2(1/size)))+2)
	} else {
		z = DefaultMaxZoomCap
	}
	z = max(z, pointZoom(points))
	if len(sizes) > 0 {
		sort.Float64s(sizes)
		if s := sizes[len(sizes)/10]; s > 0 {
			z = max(z, zoomFor(s, 4))
		}
	}
	if len(segs) > 0 {
		sort.Float64s(segs)
		if s := segs[len(segs)/2]; s > 0 {
			z = max(z, zoomFor(s, 0.5))
		}
	}
	z = min(max(z, 0), DefaultMaxZoomCap)
	for z > 0 {
		n := math.Exp2(float64(z))
		if area*n*n+length*n+float64(len(points)) <= MaxTilesEstimate {
			break
		}
		z--
	}
	return 0, z
}

// MaxTilesEstimate bounds the tile count DefaultZooms aims for.
const MaxTilesEstimate = 1 << 20

// zoomFor returns the lowest zoom at which a length (world units) spans at
// least px pixels of a 256-pixel tile.
func zoomFor(length, px float64) int {
	z := math.Ceil(math.Log2(px / (256 * length)))
	if z < 0 {
		return 0
	}
	if z > DefaultMaxZoomCap {
		return DefaultMaxZoomCap
	}
	return int(z)
}

// pointZoom returns the lowest zoom at which 95% of the distinct positions
// fall in distinct pixels. Large inputs are sampled.
func pointZoom(points []pt) int {
	if len(points) < 2 {
		return 0
	}
	const maxSample = 50000
	step := 1
	if len(points) > maxSample {
		step = len(points) / maxSample
	}
	distinct := map[pt]bool{}
	for i := 0; i < len(points); i += step {
		distinct[points[i]] = true
	}
	if len(distinct) < 2 {
		return 0
	}
	for z := 0; z < DefaultMaxZoomCap; z++ {
		scale := 256 * math.Exp2(float64(z))
		cells := make(map[[2]int64]bool, len(distinct))
		for p := range distinct {
			cells[[2]int64{int64(p.x * scale), int64(p.y * scale)}] = true
		}
		if float64(len(cells)) >= 0.95*float64(len(distinct)) {
			return z
		}
	}
	return DefaultMaxZoomCap
}
