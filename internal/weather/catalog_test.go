package weather

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// testVariable is a catalog record of a variable with keyframes at the
// given hours of 2024-03-01.
func testVariable(id, release string, hours ...int) Variable {
	v := Variable{TileFormat: "png", TileMatrixSet: matrixSet(2)}
	v.Metadata.WeatherVariable = WeatherVariable{VariableID: id, ReleaseTimestamp: release}
	for _, h := range hours {
		at := time.Date(2024, 3, 1, h, 0, 0, 0, time.UTC)
		v.Keyframes = append(v.Keyframes, Keyframe{ID: TilesetID(id, at), Timestamp: at.Format(time.RFC3339)})
	}
	return v
}

// TestLatestCache: records read once are kept, but a filter of served
// keyframes does not change the kept record, and a record replaced by an
// ingest is read again.
func TestLatestCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), Dir)
	if err := saveVariable(dir, testVariable("tmp-2m", "2024-03-01T00:00:00Z", 0, 6)); err != nil {
		t.Fatal(err)
	}
	keyframes := func(served func(string) bool) int {
		t.Helper()
		c, err := Latest(dir, served)
		if err != nil || len(c.Variables) != 1 {
			t.Fatalf("%+v %v", c, err)
		}
		return len(c.Variables[0].Keyframes)
	}
	if n := keyframes(nil); n != 2 {
		t.Fatalf("%d keyframes, want 2", n)
	}
	first := TilesetID("tmp-2m", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC))
	if n := keyframes(func(id string) bool { return id != first }); n != 1 {
		t.Errorf("%d keyframes served, want 1", n)
	}
	if n := keyframes(nil); n != 2 {
		t.Errorf("after a filtered request: %d keyframes, want 2", n)
	}
	if err := saveVariable(dir, testVariable("tmp-2m", "2024-03-01T06:00:00Z", 6, 12, 18)); err != nil {
		t.Fatal(err)
	}
	c, err := Latest(dir, nil)
	if err != nil || len(c.Variables[0].Keyframes) != 3 || c.Variables[0].Metadata.WeatherVariable.ReleaseTimestamp != "2024-03-01T06:00:00Z" {
		t.Errorf("after a newer run: %+v %v", c.Variables[0], err)
	}
}

// BenchmarkLatest is latest.json's catalog of 207 variables (the 2.5 degree
// GFS sample's count), records cached after the first request.
func BenchmarkLatest(b *testing.B) {
	dir := filepath.Join(b.TempDir(), Dir)
	for i := range 207 {
		if err := saveVariable(dir, testVariable(fmt.Sprintf("v%03d", i), "2024-03-01T00:00:00Z", 0, 3, 6)); err != nil {
			b.Fatal(err)
		}
	}
	cpu := fixtures.ProcessCPU()
	b.ResetTimer()
	for range b.N {
		if c, err := Latest(dir, nil); err != nil || len(c.Variables) != 207 {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	fixtures.ReportCPUPerOp(b, cpu)
}
