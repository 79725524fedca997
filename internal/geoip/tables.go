package geoip

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
	"github.com/tesseramaps/tessera/internal/strtab"
)

// TablesFile is the name of the tables beside the databases.
const TablesFile = "tables.json"

// Tables hold what the IP databases do not: country names, bounds,
// languages, continents and EU membership, region codes, and time zones by
// place. tessera demo writes them from open data (see internal/demo).
type Tables struct {
	// Attribution credits the sources (HTML).
	Attribution string `json:"attribution"`
	// Continents maps a continent code (AF, AN, AS, EU, NA, OC, SA) to its
	// English name.
	Continents map[string]string `json:"continents"`
	// Countries by ISO 3166-1 alpha-2 code (upper case).
	Countries map[string]*Country `json:"countries"`
	// Zones are the IANA time zone names the places refer to.
	Zones []string `json:"zones"`
	// Places are [lon, lat, zone index] of populated places, thinned to one
	// per zone and 0.1 degree cell.
	Places [][3]float64 `json:"places"`
}

// Country is one country's facts.
type Country struct {
	Name          string     `json:"name"`
	Bounds        [4]float64 `json:"bounds"`
	Languages     []string   `json:"languages"`
	ContinentCode string     `json:"continent_code"`
	EU            bool       `json:"eu"`
	// Regions are the ISO 3166-2 subdivisions: code (without the country
	// prefix) and English name.
	Regions []Region `json:"regions,omitempty"`
}

// Region is a first-level subdivision.
type Region struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// EUMembers are the member states of the European Union (ISO alpha-2).
var EUMembers = strings.Fields("AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE")

// ReadTables reads a tables file.
func ReadTables(path string) (*Tables, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("geoip tables: %w", err)
	}
	var t Tables
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("geoip tables %s: %w", path, err)
	}
	for _, p := range t.Places {
		if z := int(p[2]); z < 0 || z >= len(t.Zones) || float64(z) != p[2] {
			return nil, fmt.Errorf("geoip tables %s: place %v names zone %v of %d", path, p, p[2], len(t.Zones))
		}
	}
	return &t, nil
}

// WriteTables writes a tables file through a temporary file.
func WriteTables(path string, t *Tables) error {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("geoip tables: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("geoip tables: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("geoip tables: %w", err)
	}
	return nil
}

// regionIndex finds a country's region code by name: the same folded name,
// else the only region whose folded name contains the other or is contained
// in it ("Île-de-France" for "Ile-de-France", "Baden-Württemberg Land").
// Like the zone index it holds no pointers for the collector to scan (see
// strtab): the folded names under keys "CC\x00name", each listing its
// code.
type regionIndex struct {
	text  string
	names strtab.Lists // "CC\x00folded name" -> index into codes
	codes []strtab.Ref
	// found keeps each answer by country and name as the database writes
	// them: the names are few (one per region of the database) and folding
	// one allocated more than the rest of a lookup.
	found *regionCache
}

func newRegionIndex(cs map[string]*Country) regionIndex {
	b := strtab.NewBuilder()
	ix := regionIndex{found: newRegionCache()}
	byName := map[string][]int32{}
	for cc, c := range cs {
		for _, r := range c.Regions {
			// A later region of the same folded name replaces an earlier.
			byName[cc+"\x00"+textnorm.Fold(r.Name)] = []int32{int32(len(ix.codes))}
			ix.codes = append(ix.codes, b.Add(r.Code))
		}
	}
	ix.names = strtab.NewLists(b, byName)
	ix.text = b.Text()
	return ix
}

func (ix regionIndex) code(cc, name string) string {
	if name == "" {
		return ""
	}
	if ix.found == nil {
		return ix.codeAt(ix.match(cc, name))
	}
	h := ix.found.hash(cc, name)
	if i, ok := ix.found.get(h, cc, name); ok {
		return ix.codeAt(i)
	}
	i := ix.match(cc, name)
	ix.found.put(h, cc, name, i)
	return ix.codeAt(i)
}

// codeAt is the i-th code ("" for -1).
func (ix regionIndex) codeAt(i int32) string {
	if i < 0 {
		return ""
	}
	return ix.codes[i].In(ix.text)
}

// match is code without the kept answers: the index of the code, -1 for
// none.
func (ix regionIndex) match(cc, name string) int32 {
	f := textnorm.Fold(name)
	prefix := cc + "\x00"
	if l := ix.names.Get(ix.text, prefix+f); l != nil {
		return l[0]
	}
	found := int32(-1)
	for i := ix.names.Search(ix.text, prefix); i < ix.names.Len(); i++ {
		n, ok := strings.CutPrefix(ix.names.Key(ix.text, i), prefix)
		if !ok {
			break
		}
		if strings.Contains(n, f) || strings.Contains(f, n) {
			if found >= 0 {
				return -1
			}
			found = ix.names.At(i)[0]
		}
	}
	return found
}

// regionCache keeps answers (indexes into regionIndex.codes) by country
// and name, pointer-free: a map from the pair's hash to where the pair is
// written in text and its answer. A pair whose hash another pair has taken
// is not kept (it is looked up each time).
type regionCache struct {
	seed   maphash.Seed
	mu     sync.RWMutex
	byHash map[uint64]cachedRegion
	text   []byte
}

type cachedRegion struct {
	key  strtab.Ref // "CC\x00name" in text
	code int32
}

// maxCachedRegions bounds the cache (DB-IP's Lite database names about
// 4,000 regions).
const maxCachedRegions = 1 << 16

func newRegionCache() *regionCache {
	return &regionCache{seed: maphash.MakeSeed(), byHash: map[uint64]cachedRegion{}}
}

func (c *regionCache) hash(cc, name string) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(cc)
	h.WriteByte(0)
	h.WriteString(name)
	return h.Sum64()
}

// get is the answer kept for cc and name (of hash h).
func (c *regionCache) get(h uint64, cc, name string) (int32, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.byHash[h]
	if !ok {
		return 0, false
	}
	k := c.text[e.key.Off : e.key.Off+e.key.Len]
	if len(k) != len(cc)+1+len(name) || string(k[:len(cc)]) != cc || k[len(cc)] != 0 || string(k[len(cc)+1:]) != name {
		return 0, false
	}
	return e.code, true
}

// put keeps the answer for cc and name (of hash h), unless the hash is
// taken or the cache is full.
func (c *regionCache) put(h uint64, cc, name string, code int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, taken := c.byHash[h]; taken || len(c.byHash) >= maxCachedRegions {
		return
	}
	key := strtab.Ref{Off: uint32(len(c.text)), Len: uint32(len(cc) + 1 + len(name))}
	c.text = append(append(append(c.text, cc...), 0), name...)
	c.byHash[h] = cachedRegion{key, code}
}

// zoneIndex finds the time zone of the nearest place, in cells of one
// degree. It holds no pointers for the garbage collector to scan (a map of
// one slice per cell was some 30,000 objects that every collection of a
// server's heap visited): the places' indexes ordered by cell, and where
// each cell's run ends.
type zoneIndex struct {
	zones  []string
	places [][3]float64
	// ends[c] is where the run of cell c (see cell) ends in order.
	ends  []uint32
	order []int32
}

// The cells: 360 columns of longitude (-180 to 179) by 181 rows of
// latitude (-90 to 90, the poles' own row at 90).
const (
	zoneCols = 360
	zoneRows = 181
)

func newZoneIndex(t *Tables) zoneIndex {
	ix := zoneIndex{zones: t.Zones, places: t.Places, ends: make([]uint32, zoneCols*zoneRows)}
	cells := make([]int32, len(t.Places))
	for i, p := range t.Places {
		cells[i] = -1
		if c, ok := placeCell(p[0], p[1]); ok {
			cells[i] = int32(c)
			ix.ends[c]++
		}
	}
	n := uint32(0)
	for c := range ix.ends {
		n += ix.ends[c]
		ix.ends[c] = n
	}
	// Fill each cell's run from its end, backwards, keeping place order.
	ix.order = make([]int32, n)
	next := slices.Clone(ix.ends)
	for i := len(cells) - 1; i >= 0; i-- {
		if c := cells[i]; c >= 0 {
			next[c]--
			ix.order[next[c]] = int32(i)
		}
	}
	return ix
}

// placeCell is the cell of a place: its longitude and latitude rounded
// down (longitude 180 is -180); false for a place off the globe.
func placeCell(lon, lat float64) (int, bool) {
	if !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90) {
		return 0, false
	}
	bx, by := int(math.Floor(lon)), int(math.Floor(lat))
	return cell(bx, by)
}

// cell numbers the cell of column bx (wrapped across the antimeridian)
// and row by; false when by is off the globe.
func cell(bx, by int) (int, bool) {
	if by < -90 || by > 90 {
		return 0, false
	}
	bx = ((bx+180)%360+360)%360 - 180
	return (by+90)*zoneCols + bx + 180, true
}

// run is the places of cell c.
func (ix zoneIndex) run(c int) []int32 {
	start := uint32(0)
	if c > 0 {
		start = ix.ends[c-1]
	}
	return ix.order[start:ix.ends[c]]
}

func bucket(lon, lat float64) [2]int {
	return [2]int{int(math.Floor(lon)), int(math.Floor(lat))}
}

// zone returns the time zone of the nearest place within about 10 degrees
// ("" when there is none).
func (ix zoneIndex) zone(lon, lat float64) string {
	if len(ix.places) == 0 {
		return ""
	}
	c := bucket(lon, lat)
	best, bestD := -1, math.Inf(1)
	coslat := math.Cos(lat * math.Pi / 180)
	for ring := 0; ring <= 10; ring++ {
		// Every place of ring r is at least r-1 degrees away.
		if best >= 0 && float64(ring-1)*float64(ring-1)*min(coslat*coslat, 1) > bestD {
			break
		}
		for dx := -ring; dx <= ring; dx++ {
			for dy := -ring; dy <= ring; dy++ {
				if max(abs(dx), abs(dy)) != ring {
					continue
				}
				cl, ok := cell(c[0]+dx, c[1]+dy)
				if !ok {
					continue
				}
				for _, i := range ix.run(cl) {
					p := ix.places[i]
					ddx := math.Mod(math.Abs(p[0]-lon), 360)
					if ddx > 180 {
						ddx = 360 - ddx
					}
					ddx *= coslat
					d := ddx*ddx + (p[1]-lat)*(p[1]-lat)
					if d < bestD {
						best, bestD = int(i), d
					}
				}
			}
		}
	}
	if best < 0 {
		return ""
	}
	return ix.zones[int(ix.places[best][2])]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
