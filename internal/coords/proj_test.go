//go:build proj && cgo

package coords

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// transformCase is a transform and the axis order of its CRSs: swapIn
// (swapOut) tells the source (target) CRS's own order is latitude or
// northing first, as cs2cs reads (writes) it.
type transformCase struct {
	s, t            int
	swapIn, swapOut bool
	points          []Point
}

var transformCases = []transformCase{
	{4326, 2056, true, false, []Point{{8.5, 47.3, 0}, {7.4, 46.9, 100}, {9.5, 46.5, 0}, {6.1, 46.2, -20}}},
	{2056, 4326, false, true, []Point{{2600000, 1200000, 0}, {2683872.5, 1247743.1, 400}}},
	{4326, 3857, true, false, []Point{{13.4, 52.5, 0}, {-122.4, 37.8, 0}, {179.9, -85, 0}, {0, 0, 0}}},
	{3857, 4326, false, true, []Point{{1491681.5, 6893585.3, 0}, {-20037000, 0, 0}}},
	{4326, 32632, true, false, []Point{{9, 48, 0}, {12.1, 45.3, 12.5}}},
	{4326, 4978, true, false, []Point{{8.5, 47.3, 500}, {-70, -33, 0}}},
	{4326, 3006, true, true, []Point{{18.06, 59.33, 0}, {13.0, 55.6, 0}}},
	{31467, 25832, true, false, []Point{{3500000, 5400000, 0}, {3570000, 5930000, 0}}},
	{27700, 4326, false, true, []Point{{530000, 180000, 0}, {326000, 673000, 50}}},
	{4258, 3035, true, true, []Point{{10, 52, 0}, {-3.7, 40.4, 0}}},
}

func engine(t testing.TB) *Engine {
	testIndex(t) // skips without proj.db
	e := NewEngine(4)
	t.Cleanup(e.Close)
	return e
}

// cs2cs runs cs2cs on the points in the CRSs' own axis order and returns
// its results in the GIS order.
func cs2cs(t *testing.T, c transformCase) []Point {
	tool := fixtures.Tool(t, "cs2cs")
	var in strings.Builder
	for _, p := range c.points {
		x, y := p.X, p.Y
		if c.swapIn {
			x, y = y, x
		}
		fmt.Fprintf(&in, "%.17g %.17g %.17g\n", x, y, p.Z)
	}
	cmd := exec.Command(tool, "-f", "%.12f", fmt.Sprintf("EPSG:%d", c.s), fmt.Sprintf("EPSG:%d", c.t))
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cs2cs: %v", err)
	}
	return parsePoints(t, string(out), c.swapOut)
}

func parsePoints(t *testing.T, out string, swap bool) []Point {
	var pts []Point
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("tool output %q", line)
		}
		var v [3]float64
		for i := range v {
			var err error
			if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				t.Fatalf("tool output %q: %v", line, err)
			}
		}
		if swap {
			v[0], v[1] = v[1], v[0]
		}
		pts = append(pts, Point{v[0], v[1], v[2]})
	}
	return pts
}

func ref(code int) Ref { return Ref{"EPSG", Code(strconv.Itoa(code))} }

func near(a, b Point, tol float64) bool {
	return math.Abs(a.X-b.X) <= tol && math.Abs(a.Y-b.Y) <= tol && math.Abs(a.Z-b.Z) <= tol
}

// TestTransformAgainstCs2cs: every case agrees with cs2cs to 1e-9.
func TestTransformAgainstCs2cs(t *testing.T) {
	e := engine(t)
	for _, c := range transformCases {
		want := cs2cs(t, c)
		got, err := e.Transform(context.Background(), TransformRequest{Points: c.points, Source: ref(c.s), Target: ref(c.t)})
		if err != nil {
			t.Errorf("%d to %d: %v", c.s, c.t, err)
			continue
		}
		if len(got.Results) != len(want) {
			t.Fatalf("%d to %d: %d results, cs2cs %d", c.s, c.t, len(got.Results), len(want))
		}
		for i := range want {
			if !near(got.Results[i], want[i], 1e-9) {
				t.Errorf("%d to %d point %d: %+v, cs2cs %+v", c.s, c.t, i, got.Results[i], want[i])
			}
		}
		if !strings.HasPrefix(got.Strategy, "proj_create_crs_to_crs: ") {
			t.Errorf("%d to %d: strategy %q", c.s, c.t, got.Strategy)
		}
	}
}

// TestTransformOps: given operations are applied in the direction that
// chains them, as cct applies the operation.
func TestTransformOps(t *testing.T) {
	e := engine(t)
	cct := fixtures.Tool(t, "cct")
	pts := []Point{{7.4, 46.9, 0}, {8.5, 47.3, 10}}
	for _, c := range []struct {
		s, t    int
		inverse bool
	}{{4150, 4326, false}, {4326, 4150, true}} {
		var in strings.Builder
		for _, p := range pts {
			fmt.Fprintf(&in, "%.17g %.17g %.17g 0\n", p.Y, p.X, p.Z) // EPSG order: latitude first
		}
		args := []string{"-d", "12"}
		if c.inverse {
			args = append(args, "-I")
		}
		cmd := exec.Command(cct, append(args, "urn:ogc:def:coordinateOperation:EPSG::1676")...)
		cmd.Stdin = strings.NewReader(in.String())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("cct: %v", err)
		}
		want := parsePoints(t, string(out), true)
		got, err := e.Transform(context.Background(), TransformRequest{Points: pts, Source: ref(c.s), Target: ref(c.t), Ops: []Ref{ref(1676)}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !near(got.Results[i], want[i], 1e-9) {
				t.Errorf("%d to %d via 1676, point %d: %+v, cct %+v", c.s, c.t, i, got.Results[i], want[i])
			}
		}
		wantStrategy := "ops: CH1903+ to WGS 84 (1) (EPSG:1676)"
		if c.inverse {
			wantStrategy = "ops: inverse of CH1903+ to WGS 84 (1) (EPSG:1676)"
		}
		if got.Strategy != wantStrategy {
			t.Errorf("strategy %q, want %q", got.Strategy, wantStrategy)
		}
	}
	// Two operations chained: CH1903+ to WGS 84, then back (the inverse of
	// this Helmert transformation through geocentric coordinates is not exact:
	// 1e-8 degrees, about 1 mm).
	got, err := e.Transform(context.Background(), TransformRequest{Points: pts, Source: ref(4150), Target: ref(4150), Ops: []Ref{ref(1676), ref(1676)}})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		if !near(got.Results[i], p, 1e-7) || near(got.Results[i], p, 0) {
			t.Errorf("round trip %d: %+v, want %+v", i, got.Results[i], p)
		}
	}
}

func TestTransformErrors(t *testing.T) {
	e := engine(t)
	pt := []Point{{7.4, 46.9, 0}}
	for _, c := range []struct {
		req  TransformRequest
		want error
		msg  string
	}{
		{TransformRequest{Points: pt, Source: ref(99999999), Target: ref(4326)}, ErrInvalid, "s_srs: EPSG:99999999 is not a coordinate reference system"},
		{TransformRequest{Points: pt, Source: ref(4326), Target: ref(1676)}, ErrInvalid, "t_srs: EPSG:1676"},
		{TransformRequest{Points: pt, Source: ref(4326), Target: ref(2056), Ops: []Ref{ref(1676)}}, ErrInvalid, "end at EPSG:4150, not at the target CRS EPSG:2056"},
		{TransformRequest{Points: pt, Source: ref(2056), Target: ref(4326), Ops: []Ref{ref(1676)}}, ErrInvalid, "does not start from EPSG:2056"},
		{TransformRequest{Points: pt, Source: ref(4326), Target: ref(4326), Ops: []Ref{ref(4326)}}, ErrInvalid, "not a coordinate operation"},
		{TransformRequest{Points: []Point{{0, 1, 0}, {0, 95, 0}}, Source: ref(4326), Target: ref(3857)}, ErrNotTransformable, "point 2 (0, 95)"},
	} {
		_, err := e.Transform(context.Background(), c.req)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v with %q", c.req.key(), err, c.want, c.msg)
		}
	}
	// The engine still works after the errors.
	if _, err := e.Transform(context.Background(), TransformRequest{Points: pt, Source: ref(4326), Target: ref(2056)}); err != nil {
		t.Fatal(err)
	}
}

// TestTransformConcurrent: transforms on every context at once give the
// answers of one at a time (and the race detector watches the pool).
func TestTransformConcurrent(t *testing.T) {
	e := engine(t)
	want := make([]*TransformResult, len(transformCases))
	for i, c := range transformCases {
		var err error
		if want[i], err = e.Transform(context.Background(), TransformRequest{Points: c.points, Source: ref(c.s), Target: ref(c.t)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(transformCases)
				c := transformCases[i]
				got, err := e.Transform(context.Background(), TransformRequest{Points: c.points, Source: ref(c.s), Target: ref(c.t)})
				if err != nil {
					errs <- err
					return
				}
				for j := range got.Results {
					if got.Results[j] != want[i].Results[j] {
						errs <- fmt.Errorf("case %d point %d: %+v, alone %+v", i, j, got.Results[j], want[i].Results[j])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestExportsAgainstProjinfo: the exports are projinfo's PROJ string and
// WKT2 (2019).
func TestExportsAgainstProjinfo(t *testing.T) {
	e := engine(t)
	projinfo := fixtures.Tool(t, "projinfo")
	for _, c := range []struct {
		id   Ref
		cat  Category
		kind string
	}{
		{Ref{"EPSG", "2056"}, CategoryCRS, "crs"}, {Ref{"EPSG", "4326"}, CategoryCRS, "crs"}, {Ref{"EPSG", "3857"}, CategoryCRS, "crs"},
		{Ref{"EPSG", "27700"}, CategoryCRS, "crs"}, {Ref{"EPSG", "31467"}, CategoryCRS, "crs"}, {Ref{"IGNF", "LAMB93"}, CategoryCRS, "crs"},
		{Ref{"ESRI", "102100"}, CategoryCRS, "crs"}, {Ref{"EPSG", "5703"}, CategoryCRS, "crs"},
		{Ref{"EPSG", "1676"}, CategoryOperation, "operation"}, {Ref{"EPSG", "1618"}, CategoryOperation, "operation"},
		{Ref{"EPSG", "7004"}, CategoryEllipsoid, "ellipsoid"}, {Ref{"EPSG", "6326"}, CategoryEnsemble, "ensemble"},
		{Ref{"EPSG", "6150"}, CategoryDatum, "datum"},
	} {
		x, err := e.Export(context.Background(), c.id, c.cat)
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		run := func(format string) string {
			out, err := exec.Command(projinfo, "-k", c.kind, "-o", format, "--single-line", "-q", c.id.String()).Output()
			if err != nil {
				t.Fatalf("projinfo %s %s: %v", format, c.id, err)
			}
			return strings.TrimSpace(string(out))
		}
		if want := run("WKT2_2019"); singleLine(x.WKT) != want {
			t.Errorf("%s WKT:\n%s\nprojinfo:\n%s", c.id, singleLine(x.WKT), want)
		}
		if c.cat == CategoryCRS || c.cat == CategoryOperation {
			if want := run("PROJ"); x.Proj4 != want || want == "" {
				t.Errorf("%s PROJ:\n%s\nprojinfo:\n%s", c.id, x.Proj4, want)
			}
		} else if x.Proj4 != "" {
			t.Errorf("%s has a PROJ string: %q", c.id, x.Proj4)
		}
	}
}

// TestExportPrimeMeridian: projinfo has no prime meridian kind; the WKT is
// checked for its content.
func TestExportPrimeMeridian(t *testing.T) {
	e := engine(t)
	x, err := e.Export(context.Background(), Ref{"EPSG", "8903"}, CategoryPrimeMeridian)
	if err != nil {
		t.Fatal(err)
	}
	if w := singleLine(x.WKT); !strings.HasPrefix(w, `PRIMEM["Paris",2.5969213,ANGLEUNIT["grad"`) || !strings.HasSuffix(w, `ID["EPSG",8903]]`) || x.Proj4 != "" {
		t.Errorf("EPSG:8903: %+v", x)
	}
}

// TestExportUncreatable: the few objects PROJ cannot create (EPSG:10095, a
// transformation of proj.db 9.1.1) have empty exports, and a search page
// holding one answers.
func TestExportUncreatable(t *testing.T) {
	e := engine(t)
	x, err := e.Export(context.Background(), Ref{"EPSG", "10095"}, CategoryOperation)
	if err != nil || x != (Exports{}) {
		t.Fatalf("EPSG:10095: %+v %v", x, err)
	}
	req, err := ParseSearch("code:EPSG:10095 kind:COORDOP deprecated:*", url.Values{"exports": {"true"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := testIndex(t).Search(context.Background(), req, e)
	if err != nil || len(r.Results) != 1 || r.Results[0].Exports == nil || *r.Results[0].Exports != (Exports{}) {
		t.Fatalf("search: %+v %v", r, err)
	}
}

// singleLine joins a multi-line WKT as projinfo --single-line writes it.
func singleLine(wkt string) string {
	var b strings.Builder
	for _, l := range strings.Split(wkt, "\n") {
		b.WriteString(strings.TrimSpace(l))
	}
	return b.String()
}

// BenchmarkTransform50P99 is the p99 of a transform of 50 points (4326 to
// 2056) at concurrency 8, transformers made once per context.
func BenchmarkTransform50P99(b *testing.B) {
	e := NewEngine(0)
	defer e.Close()
	pts := make([]Point, 50)
	for i := range pts {
		pts[i] = Point{6 + float64(i)*0.08, 46 + float64(i)*0.03, 0}
	}
	req := TransformRequest{Points: pts, Source: ref(4326), Target: ref(2056)}
	for range 64 { // warm every context
		if _, err := e.Transform(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	fixtures.Latency(b, 8, func(int) error {
		_, err := e.Transform(context.Background(), req)
		return err
	})
}

// TestStrategyFollowsOperation: where PROJ chooses among several operations
// by the point (NAD27 to NAD83: a different transformation in Alaska,
// Hawaii, the conterminous states), the strategy names the one used for the
// last point, also when the transformer's names of operations are cached:
// an engine that transformed other points first answers as a fresh one.
func TestStrategyFollowsOperation(t *testing.T) {
	warm := engine(t)
	pts := []Point{{-100, 40, 0}, {-75, 45, 0}, {-150, 61, 0}, {-157.9, 21.3, 0}, {-100, 40, 0}, {-75, 45, 0}}
	seen := map[string]bool{}
	for _, p := range pts {
		req := TransformRequest{Points: []Point{p}, Source: ref(4267), Target: ref(4269)}
		got, err := warm.Transform(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		fresh := NewEngine(1)
		want, err := fresh.Transform(context.Background(), req)
		fresh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got.Strategy != want.Strategy || got.Results[0] != want.Results[0] {
			t.Errorf("%v: %q %v after other points, %q %v fresh", p, got.Strategy, got.Results[0], want.Strategy, want.Results[0])
		}
		seen[got.Strategy] = true
	}
	if len(seen) < 3 {
		t.Errorf("%d distinct strategies, want at least 3 (one operation per region): %v", len(seen), seen)
	}
}

// TestMissingPROJ: the error of a build with PROJ run where libproj cannot
// be opened is ErrNoPROJ to callers (501 over HTTP) and says what to install.
func TestMissingPROJ(t *testing.T) {
	err := error(missingPROJ("libproj (libproj25 or later) cannot be opened"))
	if !errors.Is(err, ErrNoPROJ) {
		t.Errorf("errors.Is(%v, ErrNoPROJ) = false", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "cannot be opened") || !strings.Contains(msg, "libproj25") {
		t.Errorf("message %q", msg)
	}
	e := &Engine{err: err}
	if _, err := e.Transform(t.Context(), TransformRequest{}); !errors.Is(err, ErrNoPROJ) {
		t.Errorf("Transform: %v", err)
	}
	if _, err := e.Export(t.Context(), Ref{"EPSG", "4326"}, CategoryCRS); !errors.Is(err, ErrNoPROJ) {
		t.Errorf("Export: %v", err)
	}
	e.Close()
	if err := loadPROJ(); err != nil {
		t.Fatalf("libproj here: %v", err)
	}
	if PROJVersion() == "" {
		t.Error("PROJVersion empty with libproj opened")
	}
}
