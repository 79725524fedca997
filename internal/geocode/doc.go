// Package geocode is Tessera's geocoder: an immutable world index built from
// open data, and forward (by name), reverse (by coordinates), by-id and batch
// search with the parameters and result shapes of the geocoding API (spec
// 000, "Geocoding"; spec 002 for the reverse-geocoding limit rules). It knows
// no HTTP: the handler calls ParseRequest, then Index.Search or
// Index.SearchBatch, and writes the results as JSON (errors wrapping
// ErrInvalidRequest are 400s).
//
// # Building and opening
//
// Build fetches the sources (see package sources: GeoNames cities500 and
// admin names, Natural Earth countries, i18n-iso-countries,
// libgeonames-common, iso-codes) through internal/opendata and writes one
// file; Open memory-maps it (Linux; elsewhere it is read into memory). The
// file is a set of little-endian column arrays (see format.go): features
// ordered by importance, their names by language, searchable name entries,
// a sorted token dictionary with postings, a deletion-neighbourhood table
// for typos, a grid of point features for reverse geocoding and an id table.
// Nothing is decoded at load time except the country polygons.
//
// # Place types
//
// GeoNames populated places map to types by feature code: PPLX (section of
// a populated place) is neighbourhood; PPLQ, PPLH, PPLW, PPLR, PPLF, PPLL
// and STLMT are place; every other P code (PPL, PPLA..PPLA5, PPLC, PPLG,
// PPLS) is locality. GeoNames admin1 divisions are regions, admin2 are
// subregions, Natural Earth / ISO 3166 countries are countries. Ids are
// "<type>.<number>": the geonameid for places, the ISO 3166-1 numeric code
// for countries, a sequence number (by admin code) for regions and
// subregions; ids change when the index is rebuilt. A region's center is its
// seat (or most populous place) and its bbox spans its places; a country's
// center is the centroid of its largest polygon, and by-id lookups return
// its full polygon. place_designation is city (100k+ or a capital), town
// (5k+), village (200+) or hamlet for localities, neighbourhood for PPLX.
//
// # Matching and ranking
//
// Names and queries are folded by package textnorm (NFKD, Latin, Greek and
// Cyrillic diacritics removed, case folded, apostrophes removed, split on
// other separators). A query word matches a name word exactly, as a prefix
// (the last word, autocomplete on and no trailing space) or with typos
// (fuzzyMatch on: one edit from 4 letters, two from 8, transpositions
// counting one). A feature's text score is the share of query words it
// matched (its relevance), lowered when the name has words the query lacks
// (words after the last matched one count little while typing), when the
// name is an alternate or another language's name; words the name lacks may
// match the feature's region or country ("Springfield Illinois"). The score
// adds the feature's importance (type, population, capital rank) and, with
// proximity, closeness. Candidates are the best names (by importance) of
// each query word's postings, within fixed budgets, so every query costs a
// bounded amount of work; with bbox or proximity the rest of the most
// selective word's names is scanned for features in the box or near the
// point. The first language gives a small bonus to names in
// that language; every requested language fills text_xx, language_xx and
// place_name_xx; language is the first requested language and language_xx
// the language actually used for text_xx (the requested
// one, else English, else omitted for the default name).
//
// # National data and names (issue 22)
//
// sources also reads France's communes and postcodes, US ZIP codes and a
// second set of town points (see package sources and docs/geocoding.md):
// postal codes are features of type postal_code whose extras list the
// places they serve (Covers), so a query word that is a postal code counts
// as matched for those places ("lyon 69003"). A forward result answers in
// the name that matched when the query used an exonym and no language
// (answerName), keeps diacritics and official long forms, and ranks a
// place's main name before its names in a language before its untagged
// alternates.
//
// # Other sources
//
// sources.Dataset.Features adds features of any type from other sources
// (the OpenStreetMap import of package osm): POIs with categories and tags
// (categories are searchable, so "cafe" finds cafés), roads, addresses
// (the house number matches a query word), postal codes, and
// administrative areas with polygons. Their parents (locality, subregion,
// region, country) come from the GeoNames hierarchy: the country polygon
// holding them and the likeliest locality nearby; only broader types
// become parents.
//
// # Reverse geocoding
//
// Without limit (or limit=1) reverse geocoding returns one feature per type,
// most specific first. For every type but country, a feature whose polygon
// holds the point comes first (the smallest when several do). Otherwise:
// the nearest neighbourhood within 3 km; the likeliest locality within
// 50 km (the smallest distance relative to a radius of 1 km plus
// sqrt(population)/100 km, so a point in a city's suburbs gets the city,
// not a hamlet nearer by), whose subregion and region are the point's;
// places within 5 km; other point types (POIs, addresses, roads, postal
// codes) within 1 km; and the country whose polygon holds the point (else
// the country of a locality within 25 km). With limit above 1 exactly one
// type is required and the features of that type within 1 km are returned,
// nearest first (a polygon holding the point at distance 0).
//
// # Parameters the data cannot honour
//
//   - proximity=ip biases toward the caller's place when the server has an
//     IP database and the caller's address is in it (Request.Located);
//     otherwise it is ignored.
//   - worldview: see Worldviews; the data has Natural Earth's single view
//     (auto resolves to the caller's country's view, with results as
//     default).
//   - A bare POI category searches POIs: there are no POIs yet (the OSM
//     import will add them as features of type poi with categories).
package geocode
