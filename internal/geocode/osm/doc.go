// Package osm reads an OpenStreetMap extract (.osm.pbf) and returns the
// features the geocoding index adds beside GeoNames and Natural Earth:
// administrative areas, places, streets, addresses, postal codes and POIs,
// as sources.Feature values.
//
// # Reading
//
// Read returns every feature sorted by type and number; Scan streams them
// to a callback. The file is read three times with a PBF decoder of this
// package (zlib or uncompressed blobs, dense or plain nodes; every size is
// bounded: a blob header at most 64 KiB, a blob at most 32 MiB, inflated
// data exactly its announced size):
//
//  1. relations: boundary relations and place and POI multipolygons are
//     kept with the ids of their member ways;
//  2. ways: the ways of those relations, named roads, addressed buildings,
//     place areas and POI ways are kept (their node references in one []int64 arena);
//  3. nodes: tagged nodes become place, address and POI features at once;
//     the coordinates of the nodes the kept ways use are stored beside a
//     sorted id slice (int32 lat/lon in 1e-7 degrees: 16 bytes a node).
//
// Then areas, roads, building addresses, POI ways and postal codes are
// built. Options bound the nodes, node references, relations, members and
// features kept; exceeding one is an error wrapping ErrLimit.
//
// # Tag mapping
//
// Administrative boundaries: relations type=boundary (or multipolygon) with
// boundary=administrative and a name; admin_level maps to a type:
//
//	2 country          3, 4 region       5 subregion     6 county
//	7 joint_municipality  8 municipality  9 municipal_district  10 neighbourhood
//
// (other levels are skipped). Their kind is admin_area; place_designation
// is the relation's place tag, else that of its label node. The country
// code comes from ISO3166-1(:alpha2) for countries and from the prefix of
// ISO3166-2 for subdivisions. Member ways (any role but subarea) are joined
// end to end into rings (reversed where needed, split where a ring passes a
// node twice); chains that do not close and rings with missing nodes or
// zero area are counted and skipped. Rings are nested by containment (roles
// are not trusted): outer rings counter-clockwise, holes clockwise (RFC
// 7946), a Polygon or MultiPolygon. The center is the label (else
// admin_centre) node when it is inside, else the centroid of the largest
// polygon, else a point inside it.
//
// Places: nodes, closed ways and multipolygon relations with place=* and a
// name (areas get their polygon and a center inside it):
//
//	city, town, village, hamlet                          locality
//	borough, suburb, quarter, neighbourhood, city_block  neighbourhood
//	isolated_dwelling, farm, allotments, plot, locality  place
//
// with place_designation = the tag value (none for locality) and kind
// place; population from the population tag.
//
// Streets: ways with a name and highway= motorway, trunk, primary,
// secondary (and their links; kind road) or tertiary(_link), unclassified,
// residential, living_street, service, pedestrian, road, track, busway,
// footway, path, cycleway, bridleway, steps (kind street): type road. The
// ways of one name that share a node, or whose bounds come within
// Options.MergeDistance (100 m: dual carriageways), are one feature: a
// MultiLineString of the ways joined end to end, centered halfway along its
// longest line, numbered after its smallest way id; the ref tag is an
// alternate name, and the name of unnamed roads of kind road.
//
// Addresses: nodes and ways (a way's center is its centroid) with
// addr:housenumber and addr:street (else addr:place): type address, the
// street as the name, the number as Address, addr:country as Country.
//
// Postal codes: relations boundary=postal_code (postal_code, else ref, as
// the name), and one feature per addr:postcode (and addr:country) of the
// addresses that no such relation gives, centered on the mean of its
// addresses and numbered 1, 2... in code order.
//
// POIs: nodes, ways and multipolygon relations with a name and amenity,
// shop, tourism, leisure, office, craft or historic: type poi (a point at
// the node, or at the centroid of the way or the largest polygon), categories = the tag values (not
// "yes") then the keys ("cafe", "amenity"), feature_tags = those key=value
// pairs and opening_hours, cuisine, website, phone, email, contact:*,
// wheelchair, brand, operator and a few more.
//
// Names: name, name:xx (two-letter codes) in Names, alt_name, official_name,
// short_name, loc_name and int_name (split on ';') as Alternates.
//
// # Numbers, refs and extra tags
//
// Num is the OSM id * 4 + 1 for nodes, + 2 for ways, + 3 for relations
// (unique per type; elements with ids <= 0 give no feature). Ref is
// "osm:node/ID", "osm:way/ID" or "osm:relation/ID". What sources.Feature has
// no field for travels in Tags under keys prefixed "tessera:" (TagKind,
// TagPlaceDesignation, TagAdminLevel, TagISO3166_2, TagPostcode, TagCity),
// which are not feature_tags: the index takes them out.
package osm
