package ogc

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"strings"
	"testing"
)

// FuzzDocuments feeds arbitrary descriptions to every builder: each must
// return an error or a document that parses back, without panicking.
func FuzzDocuments(f *testing.F) {
	f.Add("world", "World", "pbf", `[{"id":"a","fields":{"n":"String"},"minzoom":-5,"maxzoom":99}]`, "key=abc", 0, 14, -10.0, 30.0, 40.0, 60.0, 512)
	f.Add(hostileID, "<&>\x00", "png", "null", "a=%zz", 3, 2, math.NaN(), 0.0, math.Inf(1), 1.0, 0)
	f.Add("x", "", "webp", `[{"id":1}]`, "", 30, 30, 170.0, -90.0, -170.0, 90.0, 256)
	f.Fuzz(func(t *testing.T, id, title, format, layers, query string, minZ, maxZ int, w, s, e, n float64, size int) {
		ep, err := NewEndpoint("https://h.example/p", query)
		if err != nil {
			return
		}
		ts := TileSet{ID: id, Title: title, Description: title, Attribution: title, Format: format, MinZoom: minZ, MaxZoom: maxZ,
			Bounds: [4]float64{w, s, e, n}, Center: [3]float64{w, s, float64(minZ)}, VectorLayers: json.RawMessage(layers), TileSize: size}
		m := Map{ID: id, Title: title, Attribution: title, Format: format, MinZoom: minZ, MaxZoom: maxZ, Bounds: ts.Bounds}
		checkJSON := func(v any, err error) {
			if err != nil {
				return
			}
			b, err := json.Marshal(v)
			if err != nil || !json.Valid(b) {
				t.Fatalf("invalid JSON: %v", err)
			}
		}
		checkXML := func(b []byte, err error) {
			if err != nil {
				return
			}
			d := xml.NewDecoder(strings.NewReader(string(b)))
			for {
				_, err := d.Token()
				if err != nil {
					if err.Error() != "EOF" {
						t.Fatalf("invalid XML: %v", err)
					}
					return
				}
			}
		}
		checkJSON(TileJSON(ts, ep))
		checkJSON(OGCTileSet(ts, ep))
		checkJSON(TileSetMatrixSet(ts, ep))
		checkJSON(OGCCollection(ts, ep, CRS84URI))
		checkJSON(OGCCollection(ts, ep, CRS3857URI))
		checkJSON(OGCCollectionTileSets(ts, ep))
		checkJSON(OGCCollectionTileSet(ts, ep))
		list, _, err := OGCCollections([]TileSet{ts, ts}, ep, CRS3857URI)
		checkJSON(list, err)
		checkJSON(OGCTileMatrixSet(id, maxZ, ep))
		checkJSON(TileMatrixSet1(id, maxZ))
		checkJSON(MapTileJSON(m, ep, 256))
		checkJSON(OGCMap(m, ep))
		checkXML(TileSetWMTS(ts, ep, WMTSOptions{KVPPath: "/wmts"}))
		checkXML(MapWMTS(m, ep, WMTSOptions{}))
		checkXML(AllMapsWMTS([]Map{m}, ep, WMTSOptions{}))
		checkXML(MapWMS(m, ep, WMSOptions{}))
		checkXML(AllMapsWMS([]Map{m}, ep, WMSOptions{}))
	})
}
