package render

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/style"
)

// localResources serves the render suite's local:// and file:// URLs.
type localResources struct{ root string }

func (l localResources) Fetch(_ context.Context, url string) ([]byte, error) {
	switch {
	case strings.HasPrefix(url, "local://"):
		return os.ReadFile(filepath.Join(l.root, filepath.FromSlash(strings.TrimPrefix(url, "local://"))))
	case strings.HasPrefix(url, "file://"):
		return os.ReadFile(strings.TrimPrefix(url, "file://"))
	}
	return nil, fmt.Errorf("no network in tests: %s", url)
}

// yiqThreshold is pixelmatch's default threshold used by the suite.
const yiqThreshold = 0.1285

// differing counts the pixels whose YIQ distance exceeds the threshold,
// comparing the raw channel values of a and b (both blended over white by
// their alpha, as pixelmatch does).
func differing(a, b *image.NRGBA) int {
	maxDelta := 35215 * yiqThreshold * yiqThreshold
	n := 0
	for i := 0; i+3 < len(a.Pix) && i+3 < len(b.Pix); i += 4 {
		if a.Pix[i] == b.Pix[i] && a.Pix[i+1] == b.Pix[i+1] && a.Pix[i+2] == b.Pix[i+2] && a.Pix[i+3] == b.Pix[i+3] {
			continue
		}
		if yiqDelta(a.Pix[i:i+4], b.Pix[i:i+4]) > maxDelta {
			n++
		}
	}
	return n
}

func yiqDelta(p, q []uint8) float64 {
	blendWhite := func(c, a uint8) float64 { return 255 + (float64(c)-255)*float64(a)/255 }
	r1, g1, b1 := blendWhite(p[0], p[3]), blendWhite(p[1], p[3]), blendWhite(p[2], p[3])
	r2, g2, b2 := blendWhite(q[0], q[3]), blendWhite(q[1], q[3]), blendWhite(q[2], q[3])
	y := (r1-r2)*0.29889531 + (g1-g2)*0.58662247 + (b1-b2)*0.11448223
	i := (r1-r2)*0.59597799 - (g1-g2)*0.27417610 - (b1-b2)*0.32180189
	qq := (r1-r2)*0.21147017 - (g1-g2)*0.52261711 + (b1-b2)*0.31114694
	return 0.5053*y*y + 0.299*i*i + 0.1957*qq*qq
}

// rawNRGBA decodes a PNG keeping its channel values as stored.
func rawNRGBA(path string) (*image.NRGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, err
	}
	if n, ok := img.(*image.NRGBA); ok {
		return n, nil
	}
	out := image.NewNRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out, nil
}

// family is the group of a test for the table: the part of its group name
// before the first dash (fill-color -> fill).
func family(name string) string {
	group, _, _ := strings.Cut(name, "/")
	f, _, _ := strings.Cut(group, "-")
	return f
}

type testMeta struct {
	Width, Height int
	PixelRatio    float64 `json:"pixelRatio"`
	Allowed       *float64
	Diff          *float64
}

// runConformance renders every test of the suite and returns, per test,
// the share of differing pixels (best over the expected images), or -1
// when it could not be rendered.
func runConformance(t *testing.T, root string) map[string]float64 {
	r, err := New(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	res := localResources{root: root}
	out := map[string]float64{}
	allowedOf := map[string]float64{}
	testsDir := filepath.Join(root, "tests")
	filepath.WalkDir(testsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "style.json" {
			return err
		}
		dir := filepath.Dir(path)
		name, _ := filepath.Rel(testsDir, dir)
		name = filepath.ToSlash(name)
		out[name] = -1
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		st, err := style.Parse(raw)
		if err != nil {
			return nil
		}
		var doc struct {
			Metadata struct {
				Test testMeta `json:"test"`
			} `json:"metadata"`
		}
		json.Unmarshal(raw, &doc)
		m := doc.Metadata.Test
		if m.Width == 0 {
			m.Width = 512
		}
		if m.Height == 0 {
			m.Height = 512
		}
		if m.PixelRatio == 0 {
			m.PixelRatio = 1
		}
		allowed := 0.00025
		if m.Allowed != nil {
			allowed = *m.Allowed
		} else if m.Diff != nil {
			allowed = *m.Diff
		}
		allowedOf[name] = allowed
		img, err := r.Render(context.Background(), st, ViewOf(st, m.Width, m.Height, m.PixelRatio), res)
		if err != nil {
			return nil
		}
		got := &image.NRGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect} // premultiplied values, as expected.png stores
		best := 1.0
		total := float64(img.Rect.Dx() * img.Rect.Dy())
		if exp, err := rawNRGBA(filepath.Join(dir, "expected.png")); err == nil && exp.Rect.Eq(got.Rect) {
			best = min(best, float64(differing(got, exp))/total)
		}
		if exp, err := rawNRGBA(filepath.Join(dir, "expected-maplibre6.png")); err == nil && exp.Rect.Eq(got.Rect) {
			straight := image.NewNRGBA(img.Rect)
			draw.Draw(straight, straight.Rect, img, img.Rect.Min, draw.Src)
			best = min(best, float64(differing(straight, exp))/total)
		}
		if dirOut := os.Getenv("TESSERA_RENDER_OUT"); dirOut != "" {
			var buf bytes.Buffer
			png.Encode(&buf, img)
			os.MkdirAll(dirOut, 0o755)
			os.WriteFile(filepath.Join(dirOut, strings.ReplaceAll(name, "/", "__")+".png"), buf.Bytes(), 0o644)
		}
		out[name] = best
		return nil
	})
	for name, share := range out {
		if share >= 0 && share > allowedOf[name] {
			out[name] = -share - 1 // failed: keep the share, negative
		}
	}
	return out
}

// passingFile lists the tests that pass; the test fails when one of them
// no longer does.
const passingFile = "testdata/conformance-passing.txt"

func readPassing(t *testing.T) map[string]bool {
	f, err := os.Open(passingFile)
	if err != nil {
		t.Fatalf("read %s: %v", passingFile, err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
}

// TestConformance renders the shared GL rendering suite and prints the
// per-family table; it fails on any test that passed before (the list in
// testdata) and no longer does. TESSERA_UPDATE_CONFORMANCE=1 rewrites the
// list; TESSERA_RENDER_OUT=DIR keeps the images; TESSERA_RENDER_REPORT=FILE
// writes each test's result and differing share.
func TestConformance(t *testing.T) {
	root := fixtures.Path(t, "render-tests")
	results := runConformance(t, root)
	type row struct{ n, strict, loose int }
	rows := map[string]*row{}
	var passing []string
	for name, v := range results {
		fam := family(name)
		if rows[fam] == nil {
			rows[fam] = &row{}
		}
		r := rows[fam]
		r.n++
		share := v
		if v < -1 {
			share = -v - 1
		}
		if v >= 0 {
			r.strict++
			passing = append(passing, name)
		}
		if v != -1 && share <= 0.01 {
			r.loose++
		}
	}
	sort.Strings(passing)
	var fams []string
	for f := range rows {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-12s %5s %7s %7s\n", "family", "tests", "strict", "1%")
	tot := row{}
	for _, f := range fams {
		r := rows[f]
		fmt.Fprintf(&b, "%-12s %5d %6.1f%% %6.1f%%\n", f, r.n, 100*float64(r.strict)/float64(r.n), 100*float64(r.loose)/float64(r.n))
		tot.n, tot.strict, tot.loose = tot.n+r.n, tot.strict+r.strict, tot.loose+r.loose
	}
	fmt.Fprintf(&b, "%-12s %5d %6.1f%% %6.1f%%\n", "all", tot.n, 100*float64(tot.strict)/float64(tot.n), 100*float64(tot.loose)/float64(tot.n))
	t.Log(b.String())
	if report := os.Getenv("TESSERA_RENDER_REPORT"); report != "" {
		var names []string
		for name := range results {
			names = append(names, name)
		}
		sort.Strings(names)
		var rb strings.Builder
		for _, name := range names {
			switch v := results[name]; {
			case v == -1:
				fmt.Fprintf(&rb, "%s error\n", name)
			case v < -1:
				fmt.Fprintf(&rb, "%s fail %.5f\n", name, -v-1)
			default:
				fmt.Fprintf(&rb, "%s pass %.5f\n", name, v)
			}
		}
		if err := os.WriteFile(report, []byte(rb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("TESSERA_UPDATE_CONFORMANCE") == "1" {
		body := "# Tests of ../shared/render-tests that pass strictly; TestConformance fails when one no longer does.\n" + strings.Join(passing, "\n") + "\n"
		if err := os.WriteFile(passingFile, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	was := readPassing(t)
	for name := range was {
		if results[name] < 0 {
			t.Errorf("regression: %s passed and no longer does (differing share %.5f)", name, -results[name]-1)
		}
	}
	for _, name := range passing {
		if !was[name] {
			t.Logf("newly passing: %s (run with TESSERA_UPDATE_CONFORMANCE=1 to record it)", name)
		}
	}
}
