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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/style"
)

// localResources serves the render suite's local:// and file:// URLs.
type localResources = rendertest.Local

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
	r := newRenderer(t)
	res := localResources{Root: root}
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
	root, err := conformanceRoot()
	if err != nil {
		t.Fatal(err)
	}
	if root == "" {
		t.Skip("the shared render tests (../shared/render-tests) are absent: skipping")
	}
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
	// The list is checked before it may be rewritten: a run that loses a
	// test records nothing.
	was := readPassing(t)
	regressions := conformanceRegressions(was, results)
	for _, r := range regressions {
		t.Error(r)
	}
	for _, name := range passing {
		if !was[name] {
			t.Logf("newly passing: %s (run with TESSERA_UPDATE_CONFORMANCE=1 to record it)", name)
		}
	}
	if os.Getenv("TESSERA_UPDATE_CONFORMANCE") == "1" {
		if err := recordPassing(passingFile, passing, regressions); err != nil {
			t.Error(err)
		}
	}
}

// recordPassing rewrites the list of passing tests, unless some listed
// test regressed: the list only grows by TESSERA_UPDATE_CONFORMANCE=1 (a
// test taken out on purpose is deleted from it by hand).
func recordPassing(path string, passing, regressions []string) error {
	if len(regressions) > 0 {
		return fmt.Errorf("%s not rewritten: %d listed tests no longer pass", path, len(regressions))
	}
	body := "# Tests of ../shared/render-tests that pass strictly; TestConformance fails when one no longer does.\n" + strings.Join(passing, "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// conformanceRoot returns the folder of the shared render tests, or ""
// when it is absent and the test may skip. When every tool is required
// (TESSERA_REQUIRE_TOOLS=1, as in make test) an absent suite is an error:
// the guard must not pass by not running.
func conformanceRoot() (string, error) {
	if dir := fixtures.SharedDir(); dir != "" {
		root := filepath.Join(dir, "render-tests")
		if st, err := os.Stat(filepath.Join(root, "tests")); err == nil && st.IsDir() {
			return root, nil
		}
	}
	if fixtures.RequireTools() {
		return "", fmt.Errorf("the shared render tests (../shared/render-tests/tests, or $TESSERA_SHARED) are absent, and TESSERA_REQUIRE_TOOLS=1 requires them")
	}
	return "", nil
}

// conformanceRegressions names each test of the list that no longer
// passes: one that fails or errs, and one that is no longer in the suite
// at all (a renamed or deleted test must not drop out of the guard
// silently).
func conformanceRegressions(was map[string]bool, results map[string]float64) []string {
	var out []string
	for name := range was {
		v, ok := results[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("regression: %s passed and is no longer in the suite", name))
		case v == -1:
			out = append(out, fmt.Sprintf("regression: %s passed and no longer renders", name))
		case v < 0:
			out = append(out, fmt.Sprintf("regression: %s passed and no longer does (differing share %.5f)", name, -v-1))
		}
	}
	sort.Strings(out)
	return out
}

func TestConformanceRegressions(t *testing.T) {
	was := map[string]bool{"fill/a": true, "line/b": true, "line/c": true, "gone/d": true, "text/e": true}
	results := map[string]float64{"fill/a": 0, "line/b": 0.0001, "line/c": -1 - 0.02, "text/e": -1, "new/f": 0}
	got := conformanceRegressions(was, results)
	want := []string{
		"regression: gone/d passed and is no longer in the suite",
		"regression: line/c passed and no longer does (differing share 0.02000)",
		"regression: text/e passed and no longer renders",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("regressions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := conformanceRegressions(was, map[string]float64{"fill/a": 0, "line/b": 0, "line/c": 0, "gone/d": 0, "text/e": 0.0002}); len(got) != 0 {
		t.Errorf("all passing: %v", got)
	}
}

func TestConformanceRootRequired(t *testing.T) {
	t.Setenv("TESSERA_SHARED", filepath.Join(t.TempDir(), "absent"))
	t.Setenv("TESSERA_REQUIRE_TOOLS", "")
	if root, err := conformanceRoot(); root != "" || err != nil {
		t.Errorf("absent, not required: %q %v, want a skip", root, err)
	}
	t.Setenv("TESSERA_REQUIRE_TOOLS", "1")
	if root, err := conformanceRoot(); root != "" || err == nil {
		t.Errorf("absent, required: %q %v, want an error", root, err)
	}
	// A shared folder without the render tests is as absent.
	shared := t.TempDir()
	t.Setenv("TESSERA_SHARED", shared)
	if _, err := conformanceRoot(); err == nil {
		t.Error("shared without render-tests, required: want an error")
	}
	os.MkdirAll(filepath.Join(shared, "render-tests", "tests"), 0o755)
	if root, err := conformanceRoot(); err != nil || root != filepath.Join(shared, "render-tests") {
		t.Errorf("present: %q %v", root, err)
	}
}

func TestRecordPassingRefusesAfterRegression(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passing.txt")
	os.WriteFile(path, []byte("fill/a\nline/b\n"), 0o644)
	if err := recordPassing(path, []string{"fill/a"}, []string{"regression: line/b passed and no longer does"}); err == nil {
		t.Error("a list with a regression was rewritten")
	}
	if b, _ := os.ReadFile(path); string(b) != "fill/a\nline/b\n" {
		t.Errorf("list changed: %q", b)
	}
	if err := recordPassing(path, []string{"fill/a", "line/b", "text/c"}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.HasSuffix(string(b), "fill/a\nline/b\ntext/c\n") {
		t.Errorf("list %q", b)
	}
}
