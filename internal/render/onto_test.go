package render

import (
	"context"
	"fmt"
	"image"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

// wmsRequest parses and plans a WMS GetMap query with package ogc, as
// the map service does: the request, the view of its plan and the
// output RenderOnto draws it onto (used when the plan resamples).
func wmsRequest(tb testing.TB, query string) (*ogc.GetMapRequest, ogc.MapPlan, View, Output) {
	tb.Helper()
	q, err := url.ParseQuery(query + "&REQUEST=GetMap&LAYERS=m&FORMAT=image/png")
	if err != nil {
		tb.Fatal(err)
	}
	req, ex := ogc.ParseGetMap(q, ogc.MaxSize, func(string) bool { return true })
	if ex != nil {
		tb.Fatalf("%s: %v", query, ex)
	}
	plan := req.Plan()
	v := View{Center: [2]float64{plan.CenterLon, plan.CenterLat}, Zoom: plan.Zoom, Width: plan.Width, Height: plan.Height, PixelRatio: 1}
	out := Output{Width: req.Width, Height: req.Height, Project: req.ToPixel,
		Warp: func(view *image.RGBA) *image.RGBA { return req.Warp(view, plan) }}
	return req, plan, v, out
}

// wmsRender draws st as a WMS GetMap query asks: straight for a Web
// Mercator query with square pixels, else onto the request's grid by
// RenderOnto, or, when warpAll, by the earlier way of warping the whole
// Mercator picture, labels and all.
func wmsRender(t *testing.T, r *Renderer, st string, res Resources, query string, warpAll bool) (*image.RGBA, *ogc.GetMapRequest) {
	t.Helper()
	req, plan, v, out := wmsRequest(t, query)
	s := parse(t, st)
	var img *image.RGBA
	var err error
	switch {
	case !plan.Resample:
		img, err = r.Render(context.Background(), s, v, res)
	case warpAll:
		if img, err = r.Render(context.Background(), s, v, res); err == nil {
			img = out.Warp(img)
		}
	default:
		img, err = r.RenderOnto(context.Background(), s, v, res, out)
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if img.Rect.Dx() != req.Width || img.Rect.Dy() != req.Height {
		t.Fatalf("%s: picture %v, want %dx%d", query, img.Rect, req.Width, req.Height)
	}
	return img, req
}

// pickedBox returns the box of the pixels where pick holds, and how many.
func pickedBox(img *image.RGBA, pick func(p []uint8) bool) (image.Rectangle, int) {
	var box image.Rectangle
	n := 0
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			o := img.PixOffset(x, y)
			if pick(img.Pix[o : o+4]) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	return box, n
}

// black picks the pixels of the labels (black text on lighter colours).
func black(p []uint8) bool { return p[3] > 200 && p[0] < 60 && p[1] < 60 && p[2] < 60 }

// labelStyle is a white map with a point label at 10°E 60°N: text
// "HHHH" of 10-pixel squares 12 pixels apart (text-size 24), centred on
// the point, LAYERS the layers above the background.
const labelStyle = `{"version": 8, "glyphs": "mem://{fontstack}/{range}.pbf",
	"sources": {"g": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [
		{"type": "Feature", "properties": {"kind": "place"}, "geometry": {"type": "Point", "coordinates": [10, 60]}},
		{"type": "Feature", "properties": {"kind": "area"}, "geometry": {"type": "Polygon", "coordinates": [[[8, 59], [12, 59], [12, 61], [8, 61], [8, 59]]]}},
		{"type": "Feature", "properties": {"kind": "other"}, "geometry": {"type": "Point", "coordinates": [4, 63]}},
		{"type": "Feature", "properties": {"kind": "road"}, "geometry": {"type": "LineString", "coordinates": [[1, 55.5], [19, 64.5]]}}]}}},
	"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}}, %s]}`

const (
	placeLabel = `{"id": "label", "type": "symbol", "source": "g", "filter": ["==", ["get", "kind"], "place"],
		"layout": {"text-field": "HHHH", "text-font": ["F"], "text-size": 24}}`
	otherLabel = `{"id": "other-label", "type": "symbol", "source": "g", "filter": ["==", ["get", "kind"], "other"],
		"layout": {"text-field": "HH", "text-font": ["F"], "text-size": 24}}`
	areaFill = `{"id": "area", "type": "fill", "source": "g", "filter": ["==", ["get", "kind"], "area"],
		"paint": {"fill-color": "#0000ff", "fill-antialias": false}}`
	roadLine = `{"id": "road", "type": "line", "source": "g", "filter": ["==", ["get", "kind"], "road"],
		"paint": {"line-color": "#ff0000", "line-width": 20}}`
	roadLabel = `{"id": "road-label", "type": "symbol", "source": "g", "filter": ["==", ["get", "kind"], "road"],
		"layout": {"text-field": "HHHHHHHHHH", "text-font": ["F"], "text-size": 24, "symbol-placement": "line-center", "text-keep-upright": false}}`
)

// The reference: EPSG:3857 with square pixels, 512 pixels across 20
// degrees of longitude (zoom log2(18)), centred on the label's point.
func referenceQuery() string {
	x, y := geo.LonLatToMercator(10, 60)
	half := 256 * 2 * geo.OriginShift / (512 * 18)
	return fmt.Sprintf("VERSION=1.3.0&CRS=EPSG:3857&BBOX=%f,%f,%f,%f&WIDTH=512&HEIGHT=512", x-half, y-half, x+half, y+half)
}

// TestRenderOntoLabelsUpright draws a point label at 60°N in EPSG:4326
// (both axis orders) and in stretched Web Mercator pixels, at the
// reference's scale across: its text keeps the reference's width and
// height, and its place about the point's projected position. The
// earlier way (the Mercator picture warped, labels and all) squashes it.
func TestRenderOntoLabelsUpright(t *testing.T) {
	r := newRenderer(t)
	res := mapResources{"mem://F/0-255.pbf": glyphRange("F", "H")}
	st := fmt.Sprintf(labelStyle, placeLabel)
	ref, refReq := wmsRender(t, r, st, res, referenceQuery(), false)
	refBox, n := pickedBox(ref, black)
	if n == 0 {
		t.Fatal("the reference draws no label")
	}
	ax, ay := refReq.ToPixel(geo.LonLatToWorld(10, 60))
	refOff := [2]float64{float64(refBox.Min.X+refBox.Max.X)/2 - ax, float64(refBox.Min.Y+refBox.Max.Y)/2 - ay}
	t.Logf("reference label %v, %dx%d, centre %+.1f,%+.1f px from its point", refBox, refBox.Dx(), refBox.Dy(), refOff[0], refOff[1])
	mx, my := geo.LonLatToMercator(10, 60)
	stretched := fmt.Sprintf("VERSION=1.1.1&SRS=EPSG:3857&BBOX=%f,%f,%f,%f&WIDTH=512&HEIGHT=160",
		mx-256*2*geo.OriginShift/(512*18), my-256*2*geo.OriginShift/(512*18), mx+256*2*geo.OriginShift/(512*18), my+256*2*geo.OriginShift/(512*18))
	for _, tc := range []struct {
		name, query string
		warpAll     bool // the earlier way: the test must fail it
	}{
		{"1.3.0 EPSG:4326 (latitude first)", "VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256", false},
		{"1.1.1 EPSG:4326 (longitude first)", "VERSION=1.1.1&SRS=EPSG:4326&BBOX=0,55,20,65&WIDTH=512&HEIGHT=256", false},
		{"1.3.0 CRS:84", "VERSION=1.3.0&CRS=CRS:84&BBOX=0,55,20,65&WIDTH=512&HEIGHT=256", false},
		{"stretched Web Mercator pixels", stretched, false},
		{"EPSG:4326 warped whole (before issue 19)", "VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256", true},
		{"stretched pixels warped whole (before issue 19)", stretched, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, req := wmsRender(t, r, st, res, tc.query, tc.warpAll)
			box, n := pickedBox(img, black)
			if n == 0 {
				t.Fatal("no label drawn")
			}
			ax, ay := req.ToPixel(geo.LonLatToWorld(10, 60))
			off := [2]float64{float64(box.Min.X+box.Max.X)/2 - ax, float64(box.Min.Y+box.Max.Y)/2 - ay}
			aspect, refAspect := float64(box.Dx())/float64(box.Dy()), float64(refBox.Dx())/float64(refBox.Dy())
			t.Logf("label %v, %dx%d (aspect %.2f, reference %.2f), centre %+.1f,%+.1f px from its point", box, box.Dx(), box.Dy(), aspect, refAspect, off[0], off[1])
			ok := math.Abs(aspect/refAspect-1) <= 0.05 && abs(box.Dx()-refBox.Dx()) <= 1 && abs(box.Dy()-refBox.Dy()) <= 1 &&
				math.Abs(off[0]-refOff[0]) <= 1 && math.Abs(off[1]-refOff[1]) <= 1
			if ok == tc.warpAll {
				t.Errorf("label %dx%d at %+.1f,%+.1f from its point; the reference's %dx%d at %+.1f,%+.1f (want them alike: %v)",
					box.Dx(), box.Dy(), off[0], off[1], refBox.Dx(), refBox.Dy(), refOff[0], refOff[1], !tc.warpAll)
			}
		})
	}
	// Both axis orders name one box: one picture.
	a, _ := wmsRender(t, r, st, res, "VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256", false)
	b, _ := wmsRender(t, r, st, res, "VERSION=1.1.1&SRS=EPSG:4326&BBOX=0,55,20,65&WIDTH=512&HEIGHT=256", false)
	if string(a.Pix) != string(b.Pix) {
		t.Error("WMS 1.3.0 and 1.1.1 draw the same EPSG:4326 box differently")
	}
}

func abs(v int) int { return max(v, -v) }

// TestRenderOntoIcons: an icon (an 8x8 blue square) at 60°N keeps its
// size and place about its point in EPSG:4326 and stretched pixels.
func TestRenderOntoIcons(t *testing.T) {
	r := newRenderer(t)
	res := mapResources{"mem://sprite.json": []byte(`{"sq": {"x": 0, "y": 0, "width": 8, "height": 8, "pixelRatio": 1}}`), "mem://sprite.png": spritePNG(t)}
	st := strings.Replace(fmt.Sprintf(labelStyle, `{"id": "icon", "type": "symbol", "source": "g", "filter": ["==", ["get", "kind"], "place"], "layout": {"icon-image": "sq"}}`),
		`"glyphs"`, `"sprite": "mem://sprite", "glyphs"`, 1)
	blue := func(p []uint8) bool { return p[3] == 255 && p[2] > 200 && p[0] < 60 && p[1] < 60 }
	box := func(query string) image.Rectangle {
		img, req := wmsRender(t, r, st, res, query, false)
		b, n := pickedBox(img, blue)
		if n == 0 {
			t.Fatalf("%s: no icon", query)
		}
		ax, ay := req.ToPixel(geo.LonLatToWorld(10, 60))
		return b.Sub(image.Pt(int(math.Round(ax)), int(math.Round(ay))))
	}
	ref := box(referenceQuery())
	if ref.Dx() != 8 || ref.Dy() != 8 {
		t.Fatalf("the reference icon is %v", ref)
	}
	for _, query := range []string{
		"VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256",
		strings.Replace(referenceQuery(), "HEIGHT=512", "HEIGHT=160", 1),
	} {
		if got := box(query); got != ref {
			t.Errorf("%s: icon %v about its point, in EPSG:3857 %v", query, got, ref)
		}
	}
}

// TestRenderOntoLayerOrder: the layers are composited in style order on
// the output, so a fill above a symbol layer covers its label, and one
// below it does not; labels above the fill show.
func TestRenderOntoLayerOrder(t *testing.T) {
	r := newRenderer(t)
	res := mapResources{"mem://F/0-255.pbf": glyphRange("F", "H")}
	blue := func(p []uint8) bool { return p[3] == 255 && p[2] > 200 && p[0] < 60 && p[1] < 60 }
	const query = "VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256"
	for _, tc := range []struct {
		name   string
		layers string
		label  bool // the label in the area shows
		want   int  // the label pixels outside the area, at least
	}{
		{"fill above the label", placeLabel + "," + areaFill, false, 0},
		{"fill below the label", areaFill + "," + placeLabel, true, 0},
		{"fill between two runs of labels", placeLabel + "," + areaFill + "," + otherLabel, false, 100},
		{"fill above both runs", placeLabel + "," + otherLabel + "," + areaFill, false, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, req := wmsRender(t, r, fmt.Sprintf(labelStyle, tc.layers), res, query, false)
			// The area (8-12°E, 59-61°N) is blue wherever no label covers it.
			x0, y0 := req.ToPixel(geo.LonLatToWorld(8, 61))
			x1, y1 := req.ToPixel(geo.LonLatToWorld(12, 59))
			area := image.Rect(int(x0)+1, int(y0)+1, int(x1)-1, int(y1)-1)
			sub := img.SubImage(area).(*image.RGBA)
			_, inked := pickedBox(sub, black)
			_, blues := pickedBox(sub, blue)
			if (inked > 0) != tc.label {
				t.Errorf("%d label pixels in the area, want some: %v", inked, tc.label)
			}
			if blues+inked != area.Dx()*area.Dy() {
				t.Errorf("area %v: %d blue and %d label pixels of %d", area, blues, inked, area.Dx()*area.Dy())
			}
			if _, all := pickedBox(img, black); all-inked < tc.want {
				t.Errorf("%d label pixels outside the area, want at least %d", all-inked, tc.want)
			}
		})
	}
}

// TestRenderOntoLineLabel: a label along a line in EPSG:4326 follows the
// line as the output draws it (its angle there, not the Mercator one),
// on the line as in the Web Mercator picture.
func TestRenderOntoLineLabel(t *testing.T) {
	r := newRenderer(t)
	res := mapResources{"mem://F/0-255.pbf": glyphRange("F", "H")}
	st := fmt.Sprintf(labelStyle, roadLine+","+roadLabel)
	// along returns the label's direction (degrees, its pixels' principal
	// axis), the line's direction in the picture where the label's centre
	// is, and the label pixels' mean and largest distance across the line.
	// The line is straight in Web Mercator, where it is drawn: on the
	// request's grid it is the curve through its points projected there.
	along := func(t *testing.T, query string) (angle, line, mean, far float64) {
		img, req := wmsRender(t, r, st, res, query, false)
		x0, y0 := geo.LonLatToWorld(1, 55.5)
		x1, y1 := geo.LonLatToWorld(19, 64.5)
		var curve [][2]float64
		for k := 0; k <= 1000; k++ {
			f := float64(k) / 1000
			x, y := req.ToPixel(x0+(x1-x0)*f, y0+(y1-y0)*f)
			curve = append(curve, [2]float64{x, y})
		}
		// across returns the signed distance of a point from the curve
		// and the curve's direction at its nearest point.
		across := func(cx, cy float64) (float64, float64) {
			best, dir := math.Inf(1), 0.0
			for i := 1; i < len(curve); i++ {
				p, q := curve[i-1], curve[i]
				dx, dy := q[0]-p[0], q[1]-p[1]
				l := math.Hypot(dx, dy)
				f := math.Max(0, math.Min(1, ((cx-p[0])*dx+(cy-p[1])*dy)/(l*l)))
				if d := math.Hypot(cx-p[0]-f*dx, cy-p[1]-f*dy); d < math.Abs(best) {
					best = math.Copysign(d, (cx-p[0])*dy-(cy-p[1])*dx)
					dir = math.Atan2(dy, dx) * 180 / math.Pi
				}
			}
			return best, dir
		}
		var n, sx, sy, sxx, syy, sxy, sd float64
		for y := 0; y < img.Rect.Dy(); y++ {
			for x := 0; x < img.Rect.Dx(); x++ {
				o := img.PixOffset(x, y)
				if !black(img.Pix[o : o+4]) {
					continue
				}
				cx, cy := float64(x)+0.5, float64(y)+0.5
				d, _ := across(cx, cy)
				far = math.Max(far, math.Abs(d))
				n++
				sd += d
				sx, sy, sxx, syy, sxy = sx+cx, sy+cy, sxx+cx*cx, syy+cy*cy, sxy+cx*cy
			}
		}
		if n < 100 {
			t.Fatalf("%s: %v label pixels", query, n)
		}
		mx, my := sx/n, sy/n
		cxx, cyy, cxy := sxx/n-mx*mx, syy/n-my*my, sxy/n-mx*my
		angle = 0.5 * math.Atan2(2*cxy, cxx-cyy) * 180 / math.Pi
		_, line = across(mx, my)
		return angle, line, sd / n, far
	}
	_, _, refMean, refFar := along(t, referenceQuery())
	for _, tc := range []struct{ name, query string }{
		{"EPSG:4326", "VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256"},
		{"EPSG:4326 taller pixels", "VERSION=1.1.1&SRS=EPSG:4326&BBOX=0,55,20,65&WIDTH=400&HEIGHT=400"},
		{"stretched Web Mercator pixels", strings.Replace(referenceQuery(), "HEIGHT=512", "HEIGHT=200", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			angle, line, mean, far := along(t, tc.query)
			t.Logf("label at %.1f°, the line at %.1f° in the output; label pixels %+.1f px across the line on average, at most %.1f (Web Mercator: %+.1f, %.1f)",
				angle, line, mean, far, refMean, refFar)
			if math.Abs(angle-line) > 1.5 {
				t.Errorf("label at %.1f°, the line at %.1f° in the output", angle, line)
			}
			if math.Abs(mean-refMean) > 1.5 || far > refFar+3 {
				t.Errorf("label pixels %+.1f px across the line on average, at most %.1f; in Web Mercator %+.1f, %.1f", mean, far, refMean, refFar)
			}
		})
	}
}

// geographic returns the EPSG:4326 GetMap of the area view v shows (north
// up, whatever its bearing and pitch), of v's size in device pixels: the
// view it is drawn from and its output.
func geographic(tb testing.TB, v View) (View, Output) {
	tb.Helper()
	v.Bearing, v.Pitch = 0, 0
	fr := scene.NewFrame(v)
	x0, y0, x1, y1 := fr.WorldBounds()
	w, n := geo.WorldToLonLat(x0, y0)
	e, s := geo.WorldToLonLat(x1, y1)
	_, _, pv, out := wmsRequest(tb, fmt.Sprintf("VERSION=1.1.1&SRS=EPSG:4326&BBOX=%f,%f,%f,%f&WIDTH=%d&HEIGHT=%d",
		w, s, e, n, int(fr.W), int(fr.H)))
	return pv, out
}

// BenchmarkStreetStyleOnto draws the shared benchmark's street view (see
// BenchmarkStreetStyle) as a 512x512 EPSG:4326 GetMap of the same area,
// warm: "warped" is the Mercator picture warped whole (before issue 19),
// "onto" RenderOnto, its labels placed and drawn on the output.
func BenchmarkStreetStyleOnto(b *testing.B) {
	st, res := streetStyle(b)
	v, out := geographic(b, ViewOf(st, 512, 512, 1))
	ctx := context.Background()
	r := newRenderer(b)
	for _, bc := range []struct {
		name string
		draw func() (*image.RGBA, error)
	}{
		{"warped", func() (*image.RGBA, error) {
			img, err := r.Render(ctx, st, v, res)
			if err != nil {
				return nil, err
			}
			return out.Warp(img), nil
		}},
		{"onto", func() (*image.RGBA, error) { return r.RenderOnto(ctx, st, v, res, out) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchWarm(b, func() error {
				_, err := bc.draw()
				return err
			})
		})
	}
}
