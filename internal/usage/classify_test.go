package usage

import "testing"

func TestClassify(t *testing.T) {
	tests := []struct {
		path           string
		service, group string
		ok             bool
	}{
		{"/maps/streets/style.json", ServiceMaps, GroupSession, true},
		{"/maps/streets/", ServiceMaps, GroupRequest, true},
		{"/maps/streets", ServiceMaps, GroupRequest, true},
		{"/maps/streets/3/4/2.png", ServiceMaps, GroupRequest, true},
		{"/maps/streets/256/3/4/2@2x.webp", ServiceMaps, GroupRequest, true},
		{"/maps/streets/256/tiles.json", ServiceMaps, GroupRequest, true},
		{"/maps/streets/sprite@2x.png", ServiceMaps, GroupRequest, true},
		{"/maps/streets/WMTSCapabilities.xml", ServiceMaps, GroupRequest, true},
		{"/maps/streets/static/8.5,47.3,10/300x200.png", ServiceStatic, GroupExport, true},
		{"/maps/streets/static/auto/300x200@2x.jpg", ServiceStatic, GroupExport, true},
		{"/maps/streets/static", ServiceMaps, GroupRequest, true}, // no image: not an export
		{"/maps/style.json", ServiceMaps, GroupRequest, true},     // a map named style.json
		{"/maps/wms", ServiceMaps, GroupRequest, true},
		{"/WMTSCapabilities.xml", ServiceMaps, GroupRequest, true},
		{"/tiles/osm/3/4/2", ServiceTiles, GroupRequest, true},
		{"/tiles/osm/tiles.json", ServiceTiles, GroupRequest, true},
		{"/data/parks/features.json", ServiceData, GroupRequest, true},
		{"/images/ortho/image.json", ServiceImages, GroupRequest, true},
		{"/geocoding/zurich.json", ServiceGeocoding, GroupRequest, true},
		{"/geolocation/ip.json", ServiceGeolocation, GroupRequest, true},
		{"/coordinates/search/swiss.json", ServiceCoordinates, GroupRequest, true},
		{"/elevation/8.5,47.3.json", ServiceElevation, GroupRequest, true},
		{"/weather/latest.json", ServiceWeather, GroupRequest, true},
		{"/sprites/icons/sprite.png", ServiceSprites, GroupRequest, true},
		{"/fonts/Noto Sans/0-255.pbf", ServiceFonts, GroupRequest, true},
		{"/ogc/conformance", ServiceOGC, GroupRequest, true},
		{"/ogc/collections", ServiceOGC, GroupRequest, true},
		// Not counted.
		{"/", "", "", false},
		{"", "", "", false},
		{"/health", "", "", false},
		{"/metrics", "", "", false},
		{"/static/viewer.js", "", "", false},
		{"/v1/admin/maps", "", "", false},
		{"/v1/api_keys", "", "", false},
		{"/maps/", "", "", false},
		{"/WMTSCapabilities.xml/x", "", "", false},
		{"/mapsx/a", "", "", false},
		{"maps/a/style.json", "", "", false},
	}
	for _, tc := range tests {
		s, g, ok := Classify(tc.path)
		if s != tc.service || g != tc.group || ok != tc.ok {
			t.Errorf("Classify(%q) = %q, %q, %v; want %q, %q, %v", tc.path, s, g, ok, tc.service, tc.group, tc.ok)
		}
	}
}

// TestServicesListed: every service a path can be counted under has a
// legend entry, once.
func TestServicesListed(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Services {
		if seen[s.ID] {
			t.Errorf("service %s listed twice", s.ID)
		}
		seen[s.ID] = true
		if s.Label == "" || s.Description == "" {
			t.Errorf("service %s has no label or description", s.ID)
		}
	}
	for seg, s := range firstSegment {
		if !seen[s] {
			t.Errorf("/%s counts under %s, which Services does not list", seg, s)
		}
	}
	for _, s := range []string{ServiceMaps, ServiceStatic, ServiceAccount} {
		if !seen[s] {
			t.Errorf("%s not listed", s)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"/maps/a/style.json", "/maps/a/static/x", "/tiles/a/1/2/3", "/", "", "/maps/", "//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		s, g, ok := Classify(path)
		if !ok {
			if s != "" || g != "" {
				t.Errorf("Classify(%q) = %q, %q, false", path, s, g)
			}
			return
		}
		if _, found := serviceByID(s); !found {
			t.Errorf("Classify(%q): unknown service %q", path, s)
		}
		if groupOrder(g) == len(Groups) {
			t.Errorf("Classify(%q): unknown group %q", path, g)
		}
	})
}
