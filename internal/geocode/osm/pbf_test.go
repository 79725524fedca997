package osm

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The helpers below write .osm.pbf files from scratch (following the
// format's description), so the decoder's edge cases can be built exactly.

func pbBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func pbVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// pbPacked appends a packed repeated field (zigzag for sint64 fields).
func pbPacked(b []byte, num protowire.Number, vs []int64, zigzag bool) []byte {
	var p []byte
	for _, v := range vs {
		if zigzag {
			p = protowire.AppendVarint(p, protowire.EncodeZigZag(v))
		} else {
			p = protowire.AppendVarint(p, uint64(v))
		}
	}
	return pbBytes(b, num, p)
}

func deltas(vs []int64) []int64 {
	out := make([]int64, len(vs))
	var prev int64
	for i, v := range vs {
		out[i], prev = v-prev, v
	}
	return out
}

// blobMode says how testBlob stores its content.
type blobMode int

const (
	blobRaw blobMode = iota
	blobZlib
	blobZlibShortSize // raw_size announces one byte less than the content
	blobLZ4
)

// testBlob frames one blob: BlobHeader length, BlobHeader, Blob.
func testBlob(typ string, data []byte, mode blobMode) []byte {
	var blob []byte
	switch mode {
	case blobRaw:
		blob = pbBytes(blob, 1, data)
	case blobZlib, blobZlibShortSize:
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(data)
		w.Close()
		size := len(data)
		if mode == blobZlibShortSize {
			size--
		}
		blob = pbVarint(blob, 2, uint64(size))
		blob = pbBytes(blob, 3, z.Bytes())
	case blobLZ4:
		blob = pbVarint(blob, 2, uint64(len(data)))
		blob = pbBytes(blob, 6, data)
	}
	var hdr []byte
	hdr = pbBytes(hdr, 1, []byte(typ))
	hdr = pbVarint(hdr, 3, uint64(len(blob)))
	out := binary.BigEndian.AppendUint32(nil, uint32(len(hdr)))
	out = append(out, hdr...)
	return append(out, blob...)
}

func testHeader(features ...string) []byte {
	if features == nil {
		features = []string{"OsmSchema-V0.6", "DenseNodes"}
	}
	var h []byte
	for _, f := range features {
		h = pbBytes(h, 4, []byte(f))
	}
	return testBlob("OSMHeader", h, blobZlib)
}

// testNode is a node for testBlock; lat and lon are in units of the
// block's granularity, before the offsets.
type testNode struct {
	id, lat, lon int64
	kv           []int64 // string table indexes, key value ...
}

type testWay struct {
	id   int64
	refs []int64
	kv   []int64
}

type testRel struct {
	id    int64
	ids   []int64
	types []int64
	roles []int64
	kv    []int64
}

// testBlock is a PrimitiveBlock; zero granularity means the default.
type testBlock struct {
	strs           []string
	gran           int64
	latOff, lonOff int64
	dense, plain   []testNode
	ways           []testWay
	rels           []testRel
	noDelim        bool // no 0 after the last dense node's tags
}

func (tb testBlock) encode() []byte {
	var st []byte
	for _, s := range tb.strs {
		st = pbBytes(st, 1, []byte(s))
	}
	var b []byte
	b = pbBytes(b, 1, st)
	var g []byte
	if len(tb.dense) > 0 {
		var ids, lats, lons, kvs []int64
		for _, n := range tb.dense {
			ids, lats, lons = append(ids, n.id), append(lats, n.lat), append(lons, n.lon)
			kvs = append(append(kvs, n.kv...), 0)
		}
		if tb.noDelim {
			kvs = kvs[:len(kvs)-1]
		}
		var d []byte
		d = pbPacked(d, 1, deltas(ids), true)
		d = pbPacked(d, 8, deltas(lats), true)
		d = pbPacked(d, 9, deltas(lons), true)
		d = pbPacked(d, 10, kvs, false)
		g = pbBytes(g, 2, d)
	}
	for _, n := range tb.plain {
		var m []byte
		m = pbVarint(m, 1, protowire.EncodeZigZag(n.id))
		// Keys and values unpacked, as a proto2 writer may do.
		for i := 0; i+1 < len(n.kv); i += 2 {
			m = pbVarint(m, 2, uint64(n.kv[i]))
			m = pbVarint(m, 3, uint64(n.kv[i+1]))
		}
		m = pbVarint(m, 8, protowire.EncodeZigZag(n.lat))
		m = pbVarint(m, 9, protowire.EncodeZigZag(n.lon))
		g = pbBytes(g, 1, m)
	}
	for _, w := range tb.ways {
		var m []byte
		m = pbVarint(m, 1, uint64(w.id))
		var ks, vs []int64
		for i := 0; i+1 < len(w.kv); i += 2 {
			ks, vs = append(ks, w.kv[i]), append(vs, w.kv[i+1])
		}
		m = pbPacked(m, 2, ks, false)
		m = pbPacked(m, 3, vs, false)
		m = pbPacked(m, 8, deltas(w.refs), true)
		g = pbBytes(g, 3, m)
	}
	for _, r := range tb.rels {
		var m []byte
		m = pbVarint(m, 1, uint64(r.id))
		var ks, vs []int64
		for i := 0; i+1 < len(r.kv); i += 2 {
			ks, vs = append(ks, r.kv[i]), append(vs, r.kv[i+1])
		}
		m = pbPacked(m, 2, ks, false)
		m = pbPacked(m, 3, vs, false)
		m = pbPacked(m, 8, r.roles, false)
		m = pbPacked(m, 9, deltas(r.ids), true)
		m = pbPacked(m, 10, r.types, false)
		g = pbBytes(g, 4, m)
	}
	b = pbBytes(b, 2, g)
	if tb.gran != 0 {
		b = pbVarint(b, 17, uint64(tb.gran))
	}
	if tb.latOff != 0 {
		b = pbVarint(b, 19, uint64(tb.latOff))
	}
	if tb.lonOff != 0 {
		b = pbVarint(b, 20, uint64(tb.lonOff))
	}
	return b
}

// collected is what a full scan of a file passes to the handler.
type collected struct {
	nodes []string
	ways  []string
	rels  []string
}

func scanAll(data []byte) (collected, error) {
	var c collected
	h := &handler{
		node: func(id int64, lat, lon int32, tags tagList) error {
			c.nodes = append(c.nodes, fmtNode(id, lat, lon, tags))
			return nil
		},
		way: func(id int64, refs []int64, tags tagList) error {
			c.ways = append(c.ways, fmtWay(id, refs, tags))
			return nil
		},
		relation: func(id int64, ms []member, tags tagList) error {
			s := itoa(id)
			for _, m := range ms {
				s += " " + string("nwr"[m.typ]) + itoa(m.id) + ":" + m.role
			}
			c.rels = append(c.rels, s+fmtTags(tags))
			return nil
		},
	}
	err := scan(context.Background(), bytes.NewReader(data), h)
	return c, err
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func fmtTags(tags tagList) string {
	s := ""
	for _, t := range tags {
		s += " " + t.k + "=" + t.v
	}
	return s
}

func fmtNode(id int64, lat, lon int32, tags tagList) string {
	return itoa(id) + " " + itoa(int64(lat)) + " " + itoa(int64(lon)) + fmtTags(tags)
}

func fmtWay(id int64, refs []int64, tags tagList) string {
	s := itoa(id)
	for _, r := range refs {
		s += " " + itoa(r)
	}
	return s + fmtTags(tags)
}

func TestScanPBF(t *testing.T) {
	strs := []string{"", "name", "Nord", "place", "town", "highway", "residential", "outer", "type", "boundary"}
	block := testBlock{
		strs: strs,
		dense: []testNode{
			{id: 1, lat: 500000000, lon: 100000000, kv: []int64{1, 2, 3, 4}},
			{id: 2, lat: 500000100, lon: -100000000},
			{id: 10, lat: -900000000, lon: 1800000000},
		},
		plain: []testNode{{id: 5, lat: 1, lon: -1, kv: []int64{1, 2}}},
		ways:  []testWay{{id: 7, refs: []int64{1, 2, 10, 1}, kv: []int64{5, 6}}},
		rels:  []testRel{{id: 9, ids: []int64{7, 1, 3}, types: []int64{1, 0, 2}, roles: []int64{7, 0, 0}, kv: []int64{8, 9}}},
	}
	// The same nodes with granularity 1000 and offsets.
	coarse := testBlock{strs: []string{""}, gran: 1000, latOff: 123_000, lonOff: -7_000_000,
		dense: []testNode{{id: 20, lat: 50_000_000, lon: 10_000_000}}}
	tests := []struct {
		name string
		file []byte
		want collected
	}{
		{"zlib", append(testHeader(), testBlob("OSMData", block.encode(), blobZlib)...), collected{
			nodes: []string{"1 500000000 100000000 name=Nord place=town", "2 500000100 -100000000",
				"10 -900000000 1800000000", "5 1 -1 name=Nord"},
			ways: []string{"7 1 2 10 1 highway=residential"},
			rels: []string{"9 w7:outer n1: r3: type=boundary"},
		}},
		{"raw, granularity and offsets, unknown blob skipped", append(append(testHeader(),
			testBlob("OSMIndex", []byte("whatever"), blobRaw)...), testBlob("OSMData", coarse.encode(), blobRaw)...), collected{
			// (123000 + 1000*50e6) / 100 and (-7e6 + 1000*10e6) / 100
			nodes: []string{"20 500001230 99930000"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scanAll(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got.nodes, "|") != strings.Join(tc.want.nodes, "|") ||
				strings.Join(got.ways, "|") != strings.Join(tc.want.ways, "|") ||
				strings.Join(got.rels, "|") != strings.Join(tc.want.rels, "|") {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestScanPBFErrors(t *testing.T) {
	good := testBlock{strs: []string{"", "k"}, dense: []testNode{{id: 1, lat: 1, lon: 1}}}
	badString := testBlock{strs: []string{"", "k"}, dense: []testNode{{id: 1, lat: 1, lon: 1, kv: []int64{1, 5}}}}
	oddKV := testBlock{strs: []string{"", "k"}, dense: []testNode{{id: 1, lat: 1, lon: 1, kv: []int64{1}}}, noDelim: true}
	offGlobe := testBlock{strs: []string{""}, dense: []testNode{{id: 1, lat: 900000001, lon: 0}}}
	badMember := testBlock{strs: []string{""}, rels: []testRel{{id: 1, ids: []int64{1}, types: []int64{3}, roles: []int64{0}}}}
	shortMembers := testBlock{strs: []string{""}, rels: []testRel{{id: 1, ids: []int64{1, 2}, types: []int64{1}, roles: []int64{0, 0}}}}
	hugeHeader := binary.BigEndian.AppendUint32(nil, maxBlobHeaderSize+1)
	var bigBlobHdr []byte
	bigBlobHdr = pbBytes(bigBlobHdr, 1, []byte("OSMData"))
	bigBlobHdr = pbVarint(bigBlobHdr, 3, maxBlobSize+1)
	bigBlob := append(binary.BigEndian.AppendUint32(nil, uint32(len(bigBlobHdr))), bigBlobHdr...)
	// A zlib blob announcing more than the limit.
	var liar []byte
	liar = pbVarint(liar, 2, 1<<40)
	liar = pbBytes(liar, 3, []byte{0x78, 0x9c})
	var liarHdr []byte
	liarHdr = pbBytes(liarHdr, 1, []byte("OSMData"))
	liarHdr = pbVarint(liarHdr, 3, uint64(len(liar)))
	liarBlob := append(append(binary.BigEndian.AppendUint32(nil, uint32(len(liarHdr))), liarHdr...), liar...)

	full := append(testHeader(), testBlob("OSMData", good.encode(), blobZlib)...)
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "no OSMHeader"},
		{"data before header", testBlob("OSMData", good.encode(), blobRaw), "before OSMHeader"},
		{"unsupported feature", testHeader("OsmSchema-V0.6", "HistoricalInformation"), "unsupported feature"},
		{"truncated", full[:len(full)-3], "malformed"},
		{"truncated length", full[:len(testHeader())+2], "malformed"},
		{"header too large", append(testHeader(), hugeHeader...), "blob header of"},
		{"blob too large", append(testHeader(), bigBlob...), "blob of"},
		{"raw size too large", append(testHeader(), liarBlob...), "uncompressed blob size"},
		{"raw size wrong", append(testHeader(), testBlob("OSMData", good.encode(), blobZlibShortSize)...), "announced"},
		{"lz4", append(testHeader(), testBlob("OSMData", good.encode(), blobLZ4)...), "unsupported blob compression lz4"},
		{"string index", append(testHeader(), testBlob("OSMData", badString.encode(), blobRaw)...), "string index"},
		{"key without value", append(testHeader(), testBlob("OSMData", oddKV.encode(), blobRaw)...), "key without value"},
		{"off the globe", append(testHeader(), testBlob("OSMData", offGlobe.encode(), blobRaw)...), "off the globe"},
		{"member type", append(testHeader(), testBlob("OSMData", badMember.encode(), blobRaw)...), "member type"},
		{"member lists", append(testHeader(), testBlob("OSMData", shortMembers.encode(), blobRaw)...), "roles"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scanAll(tc.file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := scanAll(full); err != nil {
		t.Errorf("the well-formed file fails: %v", err)
	}
}

func TestReadHandWrittenPBF(t *testing.T) {
	// A way-only street from a file written by this test's encoder: two
	// plain-node ways sharing node 2, read through Read.
	strs := []string{"", "highway", "residential", "name", "Lindenweg"}
	block := testBlock{strs: strs,
		dense: []testNode{{id: 1, lat: 480000000, lon: 20000000}, {id: 2, lat: 480000000, lon: 20010000}, {id: 3, lat: 480000000, lon: 20020000}},
		ways:  []testWay{{id: 5, refs: []int64{2, 3}, kv: []int64{1, 2, 3, 4}}, {id: 4, refs: []int64{2, 1}, kv: []int64{1, 2, 3, 4}}}}
	path := filepath.Join(t.TempDir(), "x.osm.pbf")
	if err := os.WriteFile(path, append(testHeader(), testBlob("OSMData", block.encode(), blobZlib)...), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := Read(context.Background(), path, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Type != "road" || fs[0].Name != "Lindenweg" || fs[0].Ref != "osm:way/4" || fs[0].Num != 4*4+2 {
		t.Fatalf("features %+v", fs)
	}
	if !near(fs[0].Lon, 2.001) || !near(fs[0].Lat, 48) {
		t.Errorf("center %v,%v, want the shared node 2.001,48", fs[0].Lon, fs[0].Lat)
	}
	// Garbage is an error, not a panic.
	if err := os.WriteFile(path, []byte("not a pbf file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), path, Options{Logger: quietLogger()}); !errors.Is(err, errFormat) {
		t.Errorf("garbage: %v", err)
	}
}

func FuzzScanPBF(f *testing.F) {
	block := testBlock{strs: []string{"", "name", "Nord", "highway", "residential"},
		dense: []testNode{{id: 1, lat: 5, lon: 5, kv: []int64{1, 2}}, {id: 2, lat: 6, lon: 6}},
		plain: []testNode{{id: 3, lat: 7, lon: 7, kv: []int64{1, 2}}},
		ways:  []testWay{{id: 4, refs: []int64{1, 2, 3}, kv: []int64{3, 4, 1, 2}}},
		rels:  []testRel{{id: 5, ids: []int64{4, 1}, types: []int64{1, 0}, roles: []int64{0, 2}, kv: []int64{1, 2}}}}
	f.Add(append(testHeader(), testBlob("OSMData", block.encode(), blobRaw)...))
	f.Add(append(testHeader(), testBlob("OSMData", block.encode(), blobZlib)...))
	f.Add(testHeader())
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := scanAll(data)
		if err != nil && !errors.Is(err, errFormat) && !strings.Contains(err.Error(), "unsupported") {
			t.Fatalf("error of no known kind: %v", err)
		}
		for _, n := range c.nodes {
			if n == "" {
				t.Fatal("empty node")
			}
		}
	})
}
