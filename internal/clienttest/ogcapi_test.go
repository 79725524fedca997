package clienttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestGDALOGCAPI records what GDAL's OGCAPI driver does with the OGC API -
// Tiles documents Tessera serves. The driver opens only an OGC API landing
// page, a /collections list or a collection description (it reads the
// collection's extent.spatial.bbox, then follows its tilesets-map or
// tilesets-vector link to a list of tilesets, then a tileset); Tessera
// serves tilesets (/tiles/{id}/tiles) but no landing page nor collections,
// so GDAL cannot start from any Tessera URL. The test pins the exact
// exchange: GDAL asks for the tileset document once with a JSON Accept
// header, Tessera answers it with a 200 JSON document, and GDAL gives up
// because the document has no collection extent ("Missing bbox"); the
// natural API root /ogc is a 404. If Tessera starts serving collections,
// this test fails and must become a positive one.
func TestGDALOGCAPI(t *testing.T) {
	t.Parallel()
	gdalinfo := fixtures.Tool(t, "gdalinfo")
	e := startServer(t, fixtureRaster, fixtureVector)
	ctx := t.Context()

	for _, name := range []string{nameRaster, nameVector} {
		t.Run("tileset "+name, func(t *testing.T) {
			doc := "/tiles/" + name + "/tiles"
			mark := e.mark()
			_, stderr, err := run(ctx, t, append(gdalEnv(t), "CPL_DEBUG=ON"), gdalinfo, "OGCAPI:"+e.URL+doc)
			got := e.since(mark)
			t.Logf("GDAL's requests: %v", got)
			t.Logf("GDAL's messages:\n%s", gdalMessages(stderr))
			if len(got) != 1 || got[0].Method != http.MethodGet || got[0].Path != doc || got[0].Status != http.StatusOK {
				t.Errorf("requests %v, want one GET %s answered 200", got, doc)
			}
			if !bytes.Contains(stderr, []byte("Accept: application/geo+json, application/json")) {
				t.Errorf("GDAL did not ask for JSON as expected:\n%s", stderr)
			}
			if err == nil {
				t.Fatalf("GDAL opened the bare tileset document: Tessera's OGC API interop changed, update this test")
			}
			if !bytes.Contains(stderr, []byte("ERROR 1: Missing bbox")) || bytes.Contains(stderr, []byte("Unexpected Content-Type")) {
				t.Errorf("GDAL failed otherwise than for the missing collection extent:\n%s", stderr)
			}
			// What GDAL looked for and did not find, in the document it got.
			status, h, body := e.get(ctx, doc)
			var m map[string]json.RawMessage
			if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || json.Unmarshal(body, &m) != nil {
				t.Fatalf("tileset document: %d %q %.200s", status, h.Get("Content-Type"), body)
			}
			for _, member := range []string{"collections", "extent"} {
				if _, ok := m[member]; ok {
					t.Errorf("the tileset document has %q: GDAL should have used it", member)
				}
			}
			for _, member := range []string{"links", "tileMatrixSetURI", "dataType"} {
				if _, ok := m[member]; !ok {
					t.Errorf("the tileset document lacks %q", member)
				}
			}
		})
	}

	t.Run("api root", func(t *testing.T) {
		mark := e.mark()
		_, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "OGCAPI:"+e.URL+"/ogc")
		got := e.since(mark)
		t.Logf("GDAL's requests: %v", got)
		if err == nil || len(got) != 1 || got[0].Path != "/ogc" || got[0].Status != http.StatusNotFound {
			t.Errorf("OGCAPI:/ogc: err %v, requests %v (want one GET /ogc answered 404)\n%s", err, got, stderr)
		}
	})
}

var debugNoise = regexp.MustCompile(`^(GDAL: |HTTP: libcurl|HTTP: GDAL was built)`)

// gdalMessages keeps GDAL's errors and HTTP debug lines.
func gdalMessages(stderr []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(stderr), "\n") {
		if line != "" && !debugNoise.MatchString(line) {
			fmt.Fprintln(&b, "  "+line)
		}
	}
	return b.String()
}
