// Package usage counts the requests of the hosted platform and answers the
// account API's usage analytics (spec 001 part B): every answered public
// request is counted by day (UTC), service, group and API key, every
// account API request by service token; the counts are kept in memory
// (Counter), flushed to the state database with additive upserts (Meter),
// and read back as timelines and top lists over billing and calendar
// periods (Analytics). It knows nothing of HTTP: the middleware and the
// handlers call it.
package usage

import "strings"

// The groups requests are counted in.
const (
	GroupRequest = "request" // every counted request that is not one of the others
	GroupSession = "session" // a map load: a client fetching a map's style
	GroupExport  = "export"  // a static map image (and pre-rendered downloads, once served)
)

// Groups lists the groups in the order analytics show them.
var Groups = []string{GroupRequest, GroupSession, GroupExport}

// Service is one service of the hosted API as analytics name it.
type Service struct {
	ID          string // the item_id of the services classifier
	Label       string
	Description string
}

// The services requests are counted under.
const (
	ServiceMaps        = "maps"
	ServiceStatic      = "static"
	ServiceTiles       = "tiles"
	ServiceData        = "data"
	ServiceImages      = "images"
	ServiceGeocoding   = "geocoding"
	ServiceGeolocation = "geolocation"
	ServiceCoordinates = "coordinates"
	ServiceElevation   = "elevation"
	ServiceWeather     = "weather"
	ServiceSprites     = "sprites"
	ServiceFonts       = "fonts"
	ServiceOGC         = "ogc"
	ServiceAccount     = "account"
)

// Services lists every service, in the order analytics show them.
var Services = []Service{
	{ServiceMaps, "Maps", "Map styles, viewers, raster map tiles, TileJSON, WMTS and WMS of maps."},
	{ServiceStatic, "Static maps", "Static map images."},
	{ServiceTiles, "Tilesets", "Tiles and documents of tilesets."},
	{ServiceData, "Data", "Features of datasets."},
	{ServiceImages, "Images", "Tiles and documents of images."},
	{ServiceGeocoding, "Geocoding", "Forward, reverse and batch geocoding."},
	{ServiceGeolocation, "IP geolocation", "IP geolocation."},
	{ServiceCoordinates, "Coordinates", "Coordinate system search and transforms."},
	{ServiceElevation, "Elevation", "Elevation of positions."},
	{ServiceWeather, "Weather", "Weather catalog and data."},
	{ServiceSprites, "Sprites", "Map icon sets."},
	{ServiceFonts, "Fonts", "Glyph ranges."},
	{ServiceOGC, "OGC API", "OGC API landing pages, collections, tile matrix sets and conformance."},
	{ServiceAccount, "Account API", "Requests to the account service API (service tokens)."},
}

// firstSegment maps the first segment of a public path to its service.
// /maps is handled apart (styles are sessions, static images exports).
var firstSegment = map[string]string{
	"tiles":                ServiceTiles,
	"data":                 ServiceData,
	"images":               ServiceImages,
	"geocoding":            ServiceGeocoding,
	"geolocation":          ServiceGeolocation,
	"coordinates":          ServiceCoordinates,
	"elevation":            ServiceElevation,
	"weather":              ServiceWeather,
	"sprites":              ServiceSprites,
	"fonts":                ServiceFonts,
	"ogc":                  ServiceOGC,
	"WMTSCapabilities.xml": ServiceMaps,
}

// Classify returns the service and group a public request path is counted
// under, or ok false for paths that are not counted (the index page,
// health, metrics, web assets, and the admin and account APIs, which are
// counted by their own rules):
//
//	/maps/{id}/style.json          maps     session
//	/maps/{id}/static/...          static   export
//	/maps/... (anything else)      maps     request
//	/WMTSCapabilities.xml          maps     request
//	/tiles/...                     tiles    request
//	/data/... /images/... /geocoding/... /geolocation/... /coordinates/...
//	/elevation/... /weather/... /sprites/... /fonts/... /ogc/...
//	                               the segment's service, request
func Classify(path string) (service, group string, ok bool) {
	if len(path) < 2 || path[0] != '/' {
		return "", "", false
	}
	first, rest, _ := strings.Cut(path[1:], "/")
	if first == "maps" {
		// rest is {id}/... ; what follows the id decides.
		_, sub, _ := strings.Cut(rest, "/")
		switch {
		case rest == "":
			return "", "", false
		case sub == "style.json":
			return ServiceMaps, GroupSession, true
		case strings.HasPrefix(sub, "static/"):
			return ServiceStatic, GroupExport, true
		}
		return ServiceMaps, GroupRequest, true
	}
	if s, found := firstSegment[first]; found {
		if first == "WMTSCapabilities.xml" && rest != "" {
			return "", "", false
		}
		return s, GroupRequest, true
	}
	return "", "", false
}

// ClassifyAccount is the classification of the account service API: every
// request counts under the service account, group request (by the service
// token that made it).
func ClassifyAccount(string) (service, group string, ok bool) {
	return ServiceAccount, GroupRequest, true
}

// serviceByID finds a service's entry.
func serviceByID(id string) (Service, bool) {
	for _, s := range Services {
		if s.ID == id {
			return s, true
		}
	}
	return Service{}, false
}
