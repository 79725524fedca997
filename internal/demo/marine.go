package demo

import (
	"encoding/json"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/tiler"
)

// LayerWaterLabels is the layer of label points for oceans and seas.
const LayerWaterLabels = "water_labels"

// waterLabel is a named body of water and a position to write its name at,
// chosen for Tessera's demo map in open water away from coasts.
type waterLabel struct {
	name     string
	lon, lat float64
	// class is ocean, sea or gulf (bays, gulfs, straits and channels).
	class string
	// minZoom is the lowest zoom the label appears at.
	minZoom int
}

// waterLabels are the oceans, then the seas and gulfs by size.
var waterLabels = []waterLabel{
	{"Pacific Ocean", -135, 5, "ocean", 0},
	{"Pacific Ocean", 165, 22, "ocean", 0},
	{"Atlantic Ocean", -40, 30, "ocean", 0},
	{"Atlantic Ocean", -15, -28, "ocean", 0},
	{"Indian Ocean", 80, -25, "ocean", 0},
	{"Arctic Ocean", 0, 83, "ocean", 1},
	{"Southern Ocean", 60, -60, "ocean", 1},

	{"Mediterranean Sea", 20, 35.3, "sea", 2},
	{"Caribbean Sea", -75, 15, "sea", 2},
	{"Gulf of Mexico", -90, 25, "gulf", 2},
	{"Arabian Sea", 64, 15, "sea", 2},
	{"Bay of Bengal", 88, 15, "gulf", 2},
	{"South China Sea", 115, 15, "sea", 2},
	{"Philippine Sea", 132, 20, "sea", 2},
	{"Coral Sea", 155, -17, "sea", 2},
	{"Tasman Sea", 160, -38, "sea", 2},
	{"Bering Sea", -178, 58, "sea", 2},
	{"Hudson Bay", -86, 60, "gulf", 2},
	{"Barents Sea", 40, 73, "sea", 2},
	{"Sea of Okhotsk", 150, 54, "sea", 2},
	{"Norwegian Sea", 2, 68, "sea", 3},
	{"Labrador Sea", -55, 58, "sea", 3},
	{"Gulf of Alaska", -145, 56, "gulf", 3},
	{"Beaufort Sea", -140, 72, "sea", 3},
	{"Greenland Sea", -5, 76, "sea", 3},
	{"Weddell Sea", -45, -72, "sea", 3},
	{"Ross Sea", -175, -75, "sea", 3},
	{"Caspian Sea", 50.5, 42, "sea", 3},
	{"Black Sea", 35.5, 43.2, "sea", 3},
	{"Red Sea", 38, 20.5, "sea", 3},
	{"North Sea", 3, 56, "sea", 3},
	{"Baltic Sea", 19.8, 56, "sea", 3},
	{"Sea of Japan", 135, 40, "sea", 3},
	{"East China Sea", 126, 29, "sea", 3},
	{"Gulf of Guinea", 3, 2, "gulf", 3},
	{"Mozambique Channel", 41, -18, "gulf", 3},
	{"Great Australian Bight", 131, -35.5, "gulf", 3},
	{"Arafura Sea", 134, -10, "sea", 3},
	{"Java Sea", 111, -5, "sea", 4},
	{"Andaman Sea", 96, 11, "sea", 4},
	{"Yellow Sea", 123, 35.5, "sea", 4},
	{"Persian Gulf", 51.5, 27, "gulf", 4},
	{"Gulf of Aden", 48, 12.3, "gulf", 4},
	{"Bay of Biscay", -5, 45.5, "gulf", 4},
	{"Tyrrhenian Sea", 12, 40, "sea", 4},
	{"Ionian Sea", 18.5, 38, "sea", 4},
	{"Aegean Sea", 25, 39, "sea", 5},
	{"Adriatic Sea", 15.3, 43, "sea", 5},
	{"Gulf of Bothnia", 19.5, 62, "gulf", 5},
	{"Gulf of Oman", 58.5, 24.6, "gulf", 5},
	{"English Channel", -2, 50, "gulf", 5},
	{"Irish Sea", -5.3, 53.5, "sea", 5},
}

// waterLabelFeatures returns the features of the water_labels layer: name,
// class (ocean, sea, gulf) and rank (1 oceans, 2 seas shown from z2, 3 the
// others).
func waterLabelFeatures() []tiler.Feature {
	out := make([]tiler.Feature, 0, len(waterLabels))
	for i, w := range waterLabels {
		rank := 3
		switch {
		case w.class == "ocean":
			rank = 1
		case w.minZoom <= 2:
			rank = 2
		}
		out = append(out, tiler.Feature{
			ID:         uint64(i + 1),
			Geometry:   orb.Point{w.lon, w.lat},
			Properties: map[string]any{"name": w.name, "class": w.class, "rank": rank},
			MinZoom:    w.minZoom,
		})
	}
	return out
}

// SeasDataset is the name of the demo's dataset: the water label points
// as GeoJSON (SeasGeoJSON), ingested by `tessera demo` like an upload, so
// that /data/seas/features.json and /tiles/seas/ serve it.
const SeasDataset = "seas"

// SeasGeoJSON is the demo's dataset: a FeatureCollection of the water
// label points with their id, name, class and rank.
func SeasGeoJSON() ([]byte, error) {
	type feature struct {
		Type       string         `json:"type"`
		ID         uint64         `json:"id"`
		Properties map[string]any `json:"properties"`
		Geometry   map[string]any `json:"geometry"`
	}
	var features []feature
	for _, f := range waterLabelFeatures() {
		p := f.Geometry.(orb.Point)
		features = append(features, feature{Type: "Feature", ID: f.ID, Properties: f.Properties,
			Geometry: map[string]any{"type": "Point", "coordinates": []float64{p[0], p[1]}}})
	}
	return json.MarshalIndent(map[string]any{"type": "FeatureCollection", "features": features}, "", " ")
}
