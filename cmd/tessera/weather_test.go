package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/weather"
)

// TestWeatherIngestNetCDF: tessera weather ingest takes a NetCDF file
// (ferret-datasets' monthly navy winds) and --last keeps the last month of
// each variable; a negative --last is refused.
func TestWeatherIngestNetCDF(t *testing.T) {
	file := filepath.Join(fixtures.Debian(t, "ferret-datasets"), "usr", "share", "ferret-vis", "data", "monthly_navy_winds.cdf")
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"weather", "ingest", "--data", dir, "--last", "1", file}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := "tileset weather-uwnd-19921217t0330z\ntileset weather-vwnd-19921217t0330z\n2 variables, 2 tilesets, 10 tiles; 0 messages or variables skipped\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	c, err := weather.Latest(filepath.Join(dir, weather.Dir), nil)
	if err != nil || len(c.Variables) != 2 || len(c.Variables[1].Keyframes) != 1 {
		t.Errorf("catalog %+v %v", c, err)
	}
	err = run(context.Background(), []string{"weather", "ingest", "--data", dir, "--last", "-1", file}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--last -1") {
		t.Errorf("--last -1: %v", err)
	}
}
