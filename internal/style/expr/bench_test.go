package expr

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time of the calling OS thread. The machine the
// benchmarks run on is shared, so wall time per op overstates the cost;
// benchmarks lock their thread and also report CPU ns/op.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	if d := threadCPU() - start; d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func benchFeature() *MapFeature {
	props := &Object{}
	props.Set("class", String("primary"))
	props.Set("x", Number(42))
	props.Set("name", String("Main Street"))
	return &MapFeature{Props: props, Id: Number(7), Type: "LineString"}
}

var numberSpec = &PropertySpec{Type: "number", PropertyType: "data-driven",
	Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}}

var colorSpec = &PropertySpec{Type: "color", PropertyType: "data-driven",
	Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}}

func BenchmarkInterpolateGet(b *testing.B) {
	e, errs := Compile([]byte(`["interpolate", ["linear"], ["get", "x"], 0, 0, 100, 10]`), numberSpec)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ctx := &EvalContext{Zoom: 12, Feature: benchFeature()}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	start := threadCPU()
	for b.Loop() {
		v, err := e.EvalNumber(ctx)
		if err != nil || v != 4.2 {
			b.Fatalf("got %v, %v", v, err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkZoomColorMatch(b *testing.B) {
	e, errs := Compile([]byte(`["interpolate", ["linear"], ["zoom"], 5, ["match", ["get", "class"], "primary", "#f00", "secondary", "#0f0", "#00f"], 15, "white"]`), colorSpec)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ctx := &EvalContext{Zoom: 10, Feature: benchFeature()}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	start := threadCPU()
	defer reportCPU(b, start)
	for b.Loop() {
		if _, err := e.EvalColor(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFilter(b *testing.B) {
	e, errs := Compile([]byte(`["all", ["==", ["get", "class"], "primary"], [">", ["get", "x"], 10]]`), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ctx := &EvalContext{Zoom: 10, Feature: benchFeature()}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	start := threadCPU()
	defer reportCPU(b, start)
	for b.Loop() {
		ok, err := e.EvalBool(ctx)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// TestInterpolateGetAllocs asserts the data-driven fast path does not allocate.
func TestInterpolateGetAllocs(t *testing.T) {
	e, errs := Compile([]byte(`["interpolate", ["linear"], ["get", "x"], 0, 0, 100, 10]`), numberSpec)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx := &EvalContext{Zoom: 12, Feature: benchFeature()}
	allocs := testing.AllocsPerRun(100, func() {
		if v, err := e.EvalNumber(ctx); err != nil || v != 4.2 {
			t.Fatalf("got %v, %v", v, err)
		}
	})
	if allocs != 0 {
		t.Fatalf("EvalNumber allocates %.1f times per run, want 0", allocs)
	}
}
