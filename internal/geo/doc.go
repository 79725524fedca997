// Package geo holds the geometry every part of Tessera shares: the Web
// Mercator projection (metres and the unit world square), tile grid ranges,
// point-in-ring and point-in-polygon tests, and great-circle distance.
//
// It depends on nothing but the standard library and orb's point types, and
// knows nothing of tiles' contents, styles or HTTP.
package geo
