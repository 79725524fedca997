package svg

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func render(t *testing.T, src string, scale float64) *image.NRGBA {
	t.Helper()
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	img, err := d.Render(context.Background(), scale)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return img
}

// alphaArea sums coverage in pixels.
func alphaArea(img *image.NRGBA) float64 {
	s := 0.0
	for i := 3; i < len(img.Pix); i += 4 {
		s += float64(img.Pix[i]) / 255
	}
	return s
}

func px(img *image.NRGBA, x, y int) [4]uint8 {
	o := img.PixOffset(x, y)
	return [4]uint8{img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3]}
}

func svgDoc(w, h int, body string) string {
	return `<svg xmlns="http://www.w3.org/2000/svg" width="` + itoa(w) + `" height="` + itoa(h) + `">` + body + `</svg>`
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	s := ""
	for v > 0 {
		s = string(rune('0'+v%10)) + s
		v /= 10
	}
	return s
}

func TestCoverageArea(t *testing.T) {
	tests := []struct {
		name string
		body string
		area float64 // expected covered area in px at scale 1
		tol  float64 // relative tolerance
	}{
		{"rect", `<rect x="2" y="3" width="10" height="5"/>`, 50, 0.001},
		{"rect fractional", `<rect x="2.5" y="3.25" width="10" height="5.5"/>`, 55, 0.01},
		{"rounded rect", `<rect x="2" y="2" width="20" height="20" rx="5"/>`, 400 - (4-math.Pi)*25, 0.01},
		{"circle", `<circle cx="16" cy="16" r="10"/>`, math.Pi * 100, 0.01},
		{"ellipse", `<ellipse cx="16" cy="16" rx="12" ry="6"/>`, math.Pi * 72, 0.01},
		{"path lines", `<path d="M2 2 H22 V12 H2 Z"/>`, 200, 0.001},
		{"relative path", `<path d="m2 2 h20 v10 h-20 z"/>`, 200, 0.001},
		{"arc circle", `<path d="M6 16 A10 10 0 1 0 26 16 A10 10 0 1 0 6 16 Z"/>`, math.Pi * 100, 0.01},
		{"polygon", `<polygon points="2,2 22,2 2,22"/>`, 200, 0.01},
		{"triangle implicit lineto", `<path d="M2 2 22 2 2 22z"/>`, 200, 0.01},
		{"quad curve", `<path d="M2 20 Q12 0 22 20 Z"/>`, 2.0 / 3 * 20 * 10, 0.01},
		{"smooth cubic", `<path d="M2 12 C2 2 12 2 12 12 S22 22 22 12 Z"/>`, 0, 0}, // checked below: symmetric lobes cancel? no, area > 0
		{"translate", `<rect width="10" height="10" transform="translate(5 5)"/>`, 100, 0.001},
		{"scale", `<rect width="5" height="5" transform="scale(2)"/>`, 100, 0.001},
		{"rotate", `<rect x="-5" y="-5" width="10" height="10" transform="translate(16 16) rotate(45)"/>`, 100, 0.01},
		{"matrix skew", `<rect width="10" height="10" transform="matrix(1 0 0.5 1 2 2)"/>`, 100, 0.01},
		{"stroke butt", `<line x1="5" y1="10" x2="25" y2="10" stroke="#000" stroke-width="2"/>`, 40, 0.01},
		{"stroke square", `<line x1="5" y1="10" x2="25" y2="10" stroke="#000" stroke-width="2" stroke-linecap="square"/>`, 44, 0.01},
		{"stroke round", `<line x1="5" y1="10" x2="25" y2="10" stroke="#000" stroke-width="2" stroke-linecap="round"/>`, 40 + math.Pi, 0.01},
		{"stroke dashed", `<line x1="5" y1="10" x2="25" y2="10" stroke="#000" stroke-width="2" stroke-dasharray="5"/>`, 20, 0.01},
		{"stroked square miter", `<rect x="5" y="5" width="10" height="10" fill="none" stroke="#000" stroke-width="2"/>`, 12*12 - 8*8, 0.01},
		{"stroked square bevel", `<rect x="5" y="5" width="10" height="10" fill="none" stroke="#000" stroke-width="2" stroke-linejoin="bevel"/>`, 12*12 - 8*8 - 4*0.5, 0.01},
		{"stroked circle", `<circle cx="16" cy="16" r="10" fill="none" stroke="#000" stroke-width="2"/>`, math.Pi * (121 - 81), 0.01},
		{"stroked circle round join", `<circle cx="16" cy="16" r="10" fill="none" stroke="#000" stroke-width="2" stroke-linejoin="round"/>`, math.Pi * (121 - 81), 0.01},
		{"stroke percent width", `<line x1="0" y1="16" x2="32" y2="16" stroke="#000" stroke-width="12.5%"/>`, 32 * 4, 0.01},
		{"hidden", `<rect width="10" height="10" visibility="hidden"/>`, 0, 0},
		{"display none", `<g display="none"><rect width="10" height="10"/></g>`, 0, 0},
		{"fill none", `<rect width="10" height="10" fill="none"/>`, 0, 0},
		{"zero opacity", `<rect width="10" height="10" opacity="0"/>`, 0, 0},
		{"defs not drawn", `<defs><rect id="r" width="10" height="10"/></defs>`, 0, 0},
		{"use", `<defs><rect id="r" width="10" height="10"/></defs><use href="#r" x="3"/>`, 100, 0.001},
		{"xlink use", `<defs><rect id="r" width="10" height="10"/></defs><use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#r" y="3"/>`, 100, 0.001},
		{"self use ignored", `<use id="u" href="#u"/>`, 0, 0},
		{"symbol", `<symbol id="s" viewBox="0 0 5 5"><rect width="5" height="5"/></symbol><use href="#s" width="10" height="10"/>`, 100, 0.001},
		{"clip path", `<clipPath id="c"><rect width="5" height="10"/></clipPath><rect width="10" height="10" clip-path="url(#c)"/>`, 50, 0.001},
		{"nested svg", `<svg x="2" y="2" width="10" height="10" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>`, 100, 0.001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := render(t, svgDoc(32, 32, tt.body), 1)
			got := alphaArea(img)
			if tt.name == "smooth cubic" {
				if got < 50 {
					t.Fatalf("smooth cubic area %.1f, want a visible shape", got)
				}
				return
			}
			if math.Abs(got-tt.area) > tt.tol*tt.area+0.02 {
				t.Fatalf("area %.3f, want %.3f", got, tt.area)
			}
		})
	}
}

func TestFillRule(t *testing.T) {
	// Two concentric squares drawn in the same direction.
	d := `M2 2 H30 V30 H2 Z M10 10 H22 V22 H10 Z`
	for _, tt := range []struct {
		rule  string
		alpha uint8
	}{{"nonzero", 255}, {"evenodd", 0}} {
		img := render(t, svgDoc(32, 32, `<path fill-rule="`+tt.rule+`" d="`+d+`"/>`), 1)
		if got := px(img, 16, 16)[3]; got != tt.alpha {
			t.Errorf("%s: centre alpha %d, want %d", tt.rule, got, tt.alpha)
		}
		if got := px(img, 5, 5)[3]; got != 255 {
			t.Errorf("%s: ring alpha %d, want 255", tt.rule, got)
		}
	}
}

func TestColoursAndStyles(t *testing.T) {
	tests := []struct {
		name string
		body string
		want [4]uint8
	}{
		{"hex3", `<rect width="8" height="8" fill="#f00"/>`, [4]uint8{255, 0, 0, 255}},
		{"hex6", `<rect width="8" height="8" fill="#00ff00"/>`, [4]uint8{0, 255, 0, 255}},
		{"hex8", `<rect width="8" height="8" fill="#0000ff80"/>`, [4]uint8{0, 0, 255, 128}},
		{"rgb", `<rect width="8" height="8" fill="rgb(10, 20, 30)"/>`, [4]uint8{10, 20, 30, 255}},
		{"rgb percent", `<rect width="8" height="8" fill="rgb(100%,0%,0%)"/>`, [4]uint8{255, 0, 0, 255}},
		{"rgba", `<rect width="8" height="8" fill="rgba(255,0,0,0.5)"/>`, [4]uint8{255, 0, 0, 128}},
		{"hsl", `<rect width="8" height="8" fill="hsl(120, 100%, 50%)"/>`, [4]uint8{0, 255, 0, 255}},
		{"named", `<rect width="8" height="8" fill="cornflowerblue"/>`, [4]uint8{0x64, 0x95, 0xed, 255}},
		{"currentColor", `<g color="teal"><rect width="8" height="8" fill="currentColor"/></g>`, [4]uint8{0, 0x80, 0x80, 255}},
		{"inherited fill", `<g fill="#00f"><rect width="8" height="8"/></g>`, [4]uint8{0, 0, 255, 255}},
		{"fill-opacity", `<rect width="8" height="8" fill="#f00" fill-opacity="0.5"/>`, [4]uint8{255, 0, 0, 128}},
		{"style attribute wins", `<rect width="8" height="8" fill="#f00" style="fill: #0f0"/>`, [4]uint8{0, 255, 0, 255}},
		{"css class", `<style>.a { fill: #00f }</style><rect class="a" width="8" height="8" fill="#f00"/>`, [4]uint8{0, 0, 255, 255}},
		{"css id beats class", `<style>#r{fill:#0f0} .a{fill:#00f}</style><rect id="r" class="a" width="8" height="8"/>`, [4]uint8{0, 255, 0, 255}},
		{"css descendant", `<style><![CDATA[g .a{fill:#0f0}]]></style><g><rect class="a" width="8" height="8"/></g>`, [4]uint8{0, 255, 0, 255}},
		{"css child mismatch", `<style>svg > .a{fill:#0f0}</style><g><rect class="a" width="8" height="8"/></g>`, [4]uint8{0, 0, 0, 255}},
		{"group opacity", `<g opacity="0.5"><rect width="8" height="8" fill="#f00"/><rect width="8" height="8" fill="#f00"/></g>`, [4]uint8{255, 0, 0, 128}},
		{"bad colour ignored", `<rect width="8" height="8" fill="#zzz"/>`, [4]uint8{0, 0, 0, 255}},
		{"paint fallback", `<rect width="8" height="8" fill="url(#missing) #f00"/>`, [4]uint8{255, 0, 0, 255}},
		{"single-stop gradient", `<linearGradient id="g"><stop offset="0" stop-color="#0f0"/></linearGradient><rect width="8" height="8" fill="url(#g)"/>`, [4]uint8{0, 255, 0, 255}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := render(t, svgDoc(8, 8, tt.body), 1)
			got := px(img, 4, 4)
			for i := range got {
				if d := int(got[i]) - int(tt.want[i]); d < -1 || d > 1 {
					t.Fatalf("pixel %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestGradients(t *testing.T) {
	lin := `<linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient><rect width="100" height="10" fill="url(#g)"/>`
	img := render(t, svgDoc(100, 10, lin), 1)
	left, mid, right := px(img, 0, 5), px(img, 50, 5), px(img, 99, 5)
	if left[0] < 250 || left[2] > 5 || right[2] < 250 || right[0] > 5 {
		t.Errorf("linear gradient ends: %v %v", left, right)
	}
	if d := int(mid[0]) - int(mid[2]); d < -6 || d > 6 {
		t.Errorf("linear gradient middle %v not half way", mid)
	}
	rad := `<radialGradient id="g" gradientUnits="userSpaceOnUse" cx="50" cy="50" r="50"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#000"/></radialGradient><rect width="100" height="100" fill="url(#g)"/>`
	img = render(t, svgDoc(100, 100, rad), 1)
	c, e, corner := px(img, 50, 50), px(img, 75, 50), px(img, 0, 0)
	if c[0] < 250 || corner[0] > 2 || e[0] < 115 || e[0] > 140 {
		t.Errorf("radial gradient: centre %v, half radius %v, corner %v", c, e, corner)
	}
	// href inheritance of stops plus a gradientTransform that flips the direction.
	inh := `<linearGradient id="base"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient>` +
		`<linearGradient id="g" href="#base" gradientTransform="translate(1 0) scale(-1 1)"/><rect width="100" height="10" fill="url(#g)"/>`
	img = render(t, svgDoc(100, 10, inh), 1)
	if l := px(img, 0, 5); l[2] < 250 {
		t.Errorf("flipped gradient left pixel %v, want blue", l)
	}
}

func TestViewBoxAndSize(t *testing.T) {
	tests := []struct {
		src  string
		w, h float64
	}{
		{`<svg xmlns="http://www.w3.org/2000/svg" width="15" height="15"/>`, 15, 15},
		{`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10"/>`, 20, 10},
		{`<svg xmlns="http://www.w3.org/2000/svg" width="40" viewBox="0 0 20 10"/>`, 40, 20},
		{`<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 24 24"/>`, 24, 24},
		{`<svg xmlns="http://www.w3.org/2000/svg" width="12pt" height="1in"/>`, 16, 96},
		{`<svg xmlns="http://www.w3.org/2000/svg"/>`, 100, 100},
	}
	for _, tt := range tests {
		d, err := Parse([]byte(tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if w, h := d.Size(); math.Abs(w-tt.w) > 1e-9 || math.Abs(h-tt.h) > 1e-9 {
			t.Errorf("%s: size %gx%g, want %gx%g", tt.src, w, h, tt.w, tt.h)
		}
	}
	// viewBox scaling with the default xMidYMid meet: a 10x10 viewBox in a 20x10 viewport is
	// centred horizontally.
	img := render(t, `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>`, 1)
	if px(img, 2, 5)[3] != 0 || px(img, 10, 5)[3] != 255 || px(img, 17, 5)[3] != 0 {
		t.Errorf("meet alignment wrong: %v %v %v", px(img, 2, 5), px(img, 10, 5), px(img, 17, 5))
	}
	img = render(t, `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="0 0 10 10" preserveAspectRatio="none"><rect width="10" height="10"/></svg>`, 1)
	if a := alphaArea(img); math.Abs(a-200) > 0.1 {
		t.Errorf("preserveAspectRatio=none area %.2f, want 200", a)
	}
	// Rendering at 2x doubles the pixel size and quadruples the area.
	img = render(t, svgDoc(16, 16, `<circle cx="8" cy="8" r="6"/>`), 2)
	if img.Bounds().Dx() != 32 || math.Abs(alphaArea(img)-4*math.Pi*36) > 2 {
		t.Errorf("2x render: %v, area %.1f", img.Bounds(), alphaArea(img))
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("<g>", 200) + strings.Repeat("</g>", 200)
	tests := []struct {
		name string
		src  string
		want error
	}{
		{"not svg", `<html/>`, ErrNotSVG},
		{"foreign root", `<x:svg xmlns:x="urn:x"/>`, ErrNotSVG},
		{"malformed", `<svg xmlns="http://www.w3.org/2000/svg"><g></svg>`, nil},
		{"empty", ``, nil},
		{"too deep", `<svg xmlns="http://www.w3.org/2000/svg">` + deep + `</svg>`, ErrTooLarge},
		{"too big", `<svg xmlns="http://www.w3.org/2000/svg">` + strings.Repeat(" ", 5<<20) + `</svg>`, ErrTooLarge},
		{"too many elements", `<svg xmlns="http://www.w3.org/2000/svg">` + strings.Repeat("<g/>", 60000) + `</svg>`, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
}

func TestEntitiesAndForeignElements(t *testing.T) {
	// Illustrator-style DOCTYPE entities and foreign metadata (Inkscape) are accepted.
	src := `<?xml version="1.0" encoding="iso-8859-1"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [
  <!ENTITY ns_svg "http://www.w3.org/2000/svg">
  <!ENTITY red "#ff0000">
]>
<svg xmlns="&ns_svg;" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" width="8" height="8">
  <sodipodi:namedview><rect width="8" height="8" fill="#00f"/></sodipodi:namedview>
  <rect width="8" height="8" fill="&red;"/>
</svg>`
	img := render(t, src, 1)
	if got := px(img, 4, 4); got != [4]uint8{255, 0, 0, 255} {
		t.Fatalf("pixel %v, want red", got)
	}
}

func TestPathDataErrorsKeepPrefix(t *testing.T) {
	// Like browsers, a path is drawn up to the first error.
	img := render(t, svgDoc(32, 32, `<path d="M2 2 H22 V12 H2 Z L oops"/>`), 1)
	if a := alphaArea(img); math.Abs(a-200) > 0.1 {
		t.Fatalf("area %.2f, want 200", a)
	}
}

func TestRenderLimits(t *testing.T) {
	d, err := Parse([]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="10"/>`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Render(context.Background(), 1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("huge render: %v", err)
	}
	// Edge budget.
	many := strings.Repeat(`<rect width="1" height="1"/>`, 3000)
	d, err = ParseWithLimits([]byte(svgDoc(8, 8, many)), Limits{MaxEdges: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Render(context.Background(), 1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("edge budget: %v", err)
	}
	// Cancellation.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, _ = Parse([]byte(svgDoc(8, 8, many)))
	if _, err := d.Render(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled render: %v", err)
	}
}

func TestTransformParsing(t *testing.T) {
	tests := []struct {
		in string
		p  point
		ok bool
	}{
		{"translate(10)", point{11, 1}, true},
		{"translate(10, 5) scale(2)", point{12, 7}, true},
		{"rotate(90)", point{-1, 1}, true},
		{"rotate(90 1 1)", point{1, 1}, true},
		{"matrix(1,0,0,1,3,4)", point{4, 5}, true},
		{"skewX(45)", point{2, 1}, true},
		{"bogus(1)", point{1, 1}, false},
		{"translate(1", point{1, 1}, false},
	}
	for _, tt := range tests {
		m, ok := parseTransform(tt.in)
		if ok != tt.ok {
			t.Errorf("%q: ok %v", tt.in, ok)
			continue
		}
		if got := m.apply(point{1, 1}); !got.near(tt.p, 1e-9) {
			t.Errorf("%q: (1,1) -> %v, want %v", tt.in, got, tt.p)
		}
	}
}

func TestElementBounds(t *testing.T) {
	src := `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" viewBox="0 0 20 10">
  <rect id="r" x="1" y="2" width="3" height="4"/>
  <g id="g" transform="translate(5 1)"><circle cx="2" cy="2" r="1"/><rect id="inner" x="4" y="0" width="1" height="1" transform="scale(2)"/></g>
  <defs><rect id="empty" width="0" height="0"/></defs>
</svg>`
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		want [4]float64
		ok   bool
	}{
		{"r", [4]float64{2, 4, 8, 12}, true},
		{"inner", [4]float64{26, 2, 30, 6}, true},
		{"g", [4]float64{12, 2, 30, 8}, true},
		{"empty", [4]float64{}, false},
		{"missing", [4]float64{}, false},
	}
	for _, tt := range tests {
		got, ok := d.ElementBounds(tt.id)
		if ok != tt.ok {
			t.Errorf("%s: ok %v", tt.id, ok)
			continue
		}
		if !ok {
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tt.want[i]) > 1e-6 {
				t.Errorf("%s: %v, want %v", tt.id, got, tt.want)
				break
			}
		}
	}
}

func TestDeepLayersBounded(t *testing.T) {
	body := strings.Repeat(`<g opacity="0.9" clip-path="url(#c)">`, 40) + `<rect width="8" height="8"/>` + strings.Repeat(`</g>`, 40)
	img := render(t, svgDoc(8, 8, `<clipPath id="c"><rect width="8" height="8"/></clipPath>`+body), 1)
	if a := px(img, 4, 4)[3]; a == 0 || a == 255 {
		t.Fatalf("alpha %d: want partially transparent", a)
	}
}

func TestRootStyleInherited(t *testing.T) {
	// fill="none" stroke="..." on the root element (Feather/Lucide icons) applies to children.
	src := `<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" fill="none" stroke="#f00" stroke-width="2"><rect x="3" y="3" width="18" height="18"/></svg>`
	img := render(t, src, 1)
	if got := px(img, 12, 12); got[3] != 0 {
		t.Errorf("centre %v, want transparent (fill none)", got)
	}
	if got := px(img, 3, 12); got != [4]uint8{255, 0, 0, 255} {
		t.Errorf("stroke pixel %v, want red", got)
	}
}

func TestWorkBudget(t *testing.T) {
	// Many full-canvas shapes: cheap to write, expensive to draw.
	body := strings.Repeat(`<rect width="512" height="512" fill="#f00" fill-opacity="0.5"/>`, 400)
	d, err := ParseWithLimits([]byte(svgDoc(512, 512, body)), Limits{MaxWork: 10_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Render(context.Background(), 1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("work budget: %v", err)
	}
	// The default budget lets an ordinary icon through.
	d, err = Parse([]byte(svgDoc(512, 512, strings.Repeat(`<rect width="512" height="512"/>`, 10))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Render(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
}

func TestEmbeddedImage(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for i := 0; i < 16; i++ {
		copy(src.Pix[i*4:], []byte{200, uint8(i * 16), 10, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	uri := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	img := render(t, svgDoc(8, 8, `<image x="2" y="2" width="4" height="4" href="`+uri+`"/><image width="8" height="8" href="file:///etc/hostname"/>`), 1)
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			want := src.NRGBAAt(x, y)
			got := px(img, x+2, y+2)
			if got != [4]uint8{want.R, want.G, want.B, want.A} {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
	if a := px(img, 0, 0)[3]; a != 0 {
		t.Fatalf("outside the image alpha %d: a non-data href must not be loaded", a)
	}
}

func TestLargePolygon(t *testing.T) {
	// A 20000-vertex regular polygon approximating a circle of radius 10.
	var sb strings.Builder
	const n = 20000
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / n
		sb.WriteString(strconv.FormatFloat(16+10*math.Cos(a), 'f', 4, 64) + "," + strconv.FormatFloat(16+10*math.Sin(a), 'f', 4, 64) + " ")
	}
	img := render(t, svgDoc(32, 32, `<polygon points="`+sb.String()+`"/>`), 1)
	if a := alphaArea(img); math.Abs(a-math.Pi*100) > 2 {
		t.Fatalf("area %.1f, want %.1f", a, math.Pi*100)
	}
}

func TestNonScalingStroke(t *testing.T) {
	// Two 20-unit lines in a scale(4) group (80 px long each) with a 1-unit stroke: 4 px wide
	// normally; with vector-effect="non-scaling-stroke" 1 CSS px, i.e. 2 image px at scale 2.
	for _, tt := range []struct {
		effect string
		scale  float64
		area   float64 // covered image pixels
	}{
		{"none", 1, 2 * 80 * 4},
		{"non-scaling-stroke", 1, 2 * 80 * 1},
		{"non-scaling-stroke", 2, 2 * 160 * 2},
	} {
		src := svgDoc(100, 100, `<g transform="scale(4)"><path d="M2 5 H22 M2 15 H22" stroke="#000" vector-effect="`+tt.effect+`"/></g>`)
		img := render(t, src, tt.scale)
		if a := alphaArea(img); math.Abs(a-tt.area) > 0.01*tt.area {
			t.Errorf("%s at %gx: area %.1f, want %.1f", tt.effect, tt.scale, a, tt.area)
		}
	}
}

func TestRootOpacity(t *testing.T) {
	img := render(t, `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4" opacity="0.5"><rect width="4" height="4" fill="#0f0"/></svg>`, 1)
	if got := px(img, 2, 2); got != [4]uint8{0, 255, 0, 128} {
		t.Fatalf("pixel %v, want half-transparent green", got)
	}
}

func TestUseFanOutBounded(t *testing.T) {
	// Ten uses of ten uses of ... : 10^8 rectangles if unbounded.
	var sb strings.Builder
	sb.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><defs><rect id="g0" width="1" height="1"/>`)
	for i := 1; i <= 8; i++ {
		sb.WriteString(`<g id="g` + strconv.Itoa(i) + `">`)
		for j := 0; j < 10; j++ {
			sb.WriteString(`<use href="#g` + strconv.Itoa(i-1) + `"/>`)
		}
		sb.WriteString(`</g>`)
	}
	sb.WriteString(`</defs><use href="#g8"/></svg>`)
	d, err := Parse([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = d.Render(context.Background(), 1)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("fan-out: %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("fan-out took %v", el)
	}
}
