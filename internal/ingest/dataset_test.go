package ingest

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/geotiff"
	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/store"
)

// datasetEnv is a data directory with a dataset ingest service over it.
type datasetEnv struct {
	dir  string
	db   *store.DB
	cat  *catalog.Catalog
	d    *Datasets
	blob blob.Store
	// partBase prefixes the relative part URLs of a local blob store.
	partBase string
}

// openDatasets opens (or reopens, after a stop) the service over dir.
// Without start, no worker runs: processing ingests wait.
func openDatasets(t *testing.T, dir string, bs blob.Store, opts DatasetOptions, hook func(ctx context.Context, stage, id string) error, start ...bool) *datasetEnv {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	log := slog.New(slog.DiscardHandler)
	cat := catalog.New(filepath.Join(dir, "tiles"), db, catalog.Options{Logger: log})
	if err := os.MkdirAll(cat.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := cat.Load(ctx); err != nil {
		t.Fatal(err)
	}
	opts.Blob, opts.Logger = bs, log
	if opts.MaxSize == 0 {
		opts.MaxSize = 64 << 20
	}
	if opts.Poll == 0 {
		opts.Poll = 50 * time.Millisecond
	}
	d, err := NewDatasets(ctx, db, cat, filepath.Join(dir, "uploads", "datasets"), opts)
	if err != nil {
		t.Fatal(err)
	}
	d.hook = hook
	if len(start) == 0 || start[0] {
		d.Start()
	}
	t.Cleanup(func() { d.Close() })
	return &datasetEnv{dir: dir, db: db, cat: cat, d: d, blob: bs}
}

// localBlob makes a local blob store with a server taking its parts.
func localBlob(t *testing.T, dir string) (*blob.Local, string) {
	l, err := blob.NewLocal(filepath.Join(dir, "blobs"), blob.LocalOptions{Secret: []byte("a test secret of some length"), PartPath: "/parts", MinPartSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, num, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/parts/"), "/")
		n, _ := strconv.Atoi(num)
		etag, err := l.PutPart(r.Context(), id, n, r.URL.Query(), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		w.Header().Set("ETag", etag)
	}))
	t.Cleanup(srv.Close)
	return l, srv.URL
}

// s3Blob starts versitygw with a bucket and returns the store and the
// gateway's folder.
func s3Blob(t *testing.T) (*blob.S3, string) {
	endpoint, root := fixtures.VersityGW(t, "ingestkey", "ingestsecret123")
	if err := os.Mkdir(filepath.Join(root, "tessera"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := blob.NewS3("s3://tessera/uploads?endpoint="+endpoint+"&region=us-east-1&path_style=true", blob.S3Options{AccessKey: "ingestkey", SecretKey: "ingestsecret123"})
	if err != nil {
		t.Fatal(err)
	}
	return s, root
}

// regularFiles lists the files under dir, but versitygw's lock files.
func regularFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() && !strings.Contains(p, "/.vgwlocks/") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// putParts PUTs the file's parts to the record's URLs as a browser would
// (no credentials) and returns the parts with their ETags.
func putParts(t *testing.T, rec DatasetRecord, base string, data []byte) []blob.Part {
	t.Helper()
	var parts []blob.Part
	for _, p := range rec.Parts {
		lo := int64(p.Number-1) * rec.PartSize
		hi := min(lo+rec.PartSize, int64(len(data)))
		u := p.URL
		if strings.HasPrefix(u, "/") {
			u = base + u
		}
		req, _ := http.NewRequest(http.MethodPut, u, bytes.NewReader(data[lo:hi]))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" {
			t.Fatalf("part %d: status %d", p.Number, resp.StatusCode)
		}
		parts = append(parts, blob.Part{Number: p.Number, ETag: resp.Header.Get("ETag")})
	}
	return parts
}

// waitDone waits until the ingest leaves the processing state.
func waitDone(t *testing.T, d *Datasets, id string) DatasetRecord {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rec, err := d.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.State != store.IngestProcessing {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("ingest %s still processing (progress %v)", id, rec.Progress)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// geoImage makes a w x h image of 3x3-pixel blocks of distinct colours.
func geoImage(w, h int, seed uint8) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x/3*13) + seed, uint8(y / 3 * 7), uint8((x/3)*(y/3)) ^ seed, 255})
		}
	}
	return img
}

func encodeGeoTIFF(t *testing.T, img *image.NRGBA, g geotiff.Georef) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := geotiff.Encode(&buf, img, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkRasterTiles compares every 5th pixel of every tile of the tileset
// at path with the source pixel under its centre, found by the test's own
// arithmetic; it returns the pixels compared.
func checkRasterTiles(t *testing.T, path string, src *image.NRGBA, g geotiff.Georef) int {
	t.Helper()
	ctx := context.Background()
	r, err := mbtiles.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	checked, tiles := 0, 0
	err = r.Each(ctx, func(c mbtiles.Coord, data []byte) error {
		tiles++
		tile, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return err
		}
		n := math.Exp2(float64(c.Z))
		for py := 2; py < 256; py += 5 {
			for px := 2; px < 256; px += 5 {
				u := (float64(c.X) + (float64(px)+0.5)/256) / n
				v := (float64(c.Y) + (float64(py)+0.5)/256) / n
				var sx, sy float64
				if g.EPSG == geotiff.EPSG4326 {
					sx, sy = u*360-180, math.Atan(math.Sinh(math.Pi*(1-2*v)))*180/math.Pi
				} else {
					half := math.Pi * 6378137
					sx, sy = (2*u-1)*half, (1-2*v)*half
				}
				fc, fr := (sx-g.OriginX)/g.ScaleX, (g.OriginY-sy)/g.ScaleY
				got := color.NRGBAModel.Convert(tile.At(px, py)).(color.NRGBA)
				if fc < 0 || fr < 0 || fc >= float64(w) || fr >= float64(h) {
					if got.A != 0 && (fc < -1e-6 || fr < -1e-6 || fc > float64(w)+1e-6 || fr > float64(h)+1e-6) {
						t.Fatalf("tile %v pixel (%d,%d) outside the image is %v", c, px, py, got)
					}
					continue
				}
				if math.Abs(fc-math.Round(fc)) < 1e-6 || math.Abs(fr-math.Round(fr)) < 1e-6 {
					continue // on a pixel border: either side is right
				}
				if want := src.NRGBAAt(int(fc), int(fr)); got != want {
					t.Fatalf("tile %v pixel (%d,%d) = %v, want source pixel (%d,%d) = %v", c, px, py, got, int(fc), int(fr), want)
				}
				checked++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tiles == 0 || checked < 1000 {
		t.Fatalf("only %d tiles and %d pixels checked", tiles, checked)
	}
	return checked
}

// TestDatasetS3MultipartGeoTIFF: the whole path with a real S3 server: the
// client PUTs the parts of a GeoTIFF to the presigned URLs without
// credentials and processes with their ETags; the raster tileset's tiles
// hold the source's pixels, and no object is left in the bucket.
func TestDatasetS3MultipartGeoTIFF(t *testing.T) {
	s3, root := s3Blob(t)
	env := openDatasets(t, t.TempDir(), s3, DatasetOptions{}, nil)
	ctx := context.Background()
	// 3857, 10 m pixels near Zurich; 1300 x 1100 RGBA is 5.7 MB: two parts.
	g := geotiff.Georef{EPSG: geotiff.EPSG3857, OriginX: 950000.5, OriginY: 6004000.25, ScaleX: 10, ScaleY: 10}
	src := geoImage(1300, 1100, 0)
	data := encodeGeoTIFF(t, src, g)
	rec, err := env.d.Create(ctx, DatasetCreate{Filename: "zurich.tif", Size: int64(len(data)), OutputType: OutputRaster, UploadTypes: []string{"drive_other", UploadS3Multipart}})
	if err != nil {
		t.Fatal(err)
	}
	if rec.UploadType != UploadS3Multipart || len(rec.Parts) != 2 || rec.PartSize != blob.MinPartSize || rec.State != store.IngestUpload || rec.Progress != 0 {
		t.Fatalf("created %+v", rec)
	}
	for _, p := range rec.Parts {
		if !strings.Contains(p.URL, "X-Amz-Signature=") || !strings.Contains(p.URL, "X-Amz-Expires=21600") {
			t.Fatalf("part URL %s is not presigned for 6 hours", p.URL)
		}
	}
	parts := putParts(t, rec, "", data)
	if rec, err = env.d.Process(ctx, rec.ID, UploadResult{Type: UploadS3Multipart, Parts: parts}); err != nil {
		t.Fatal(err)
	}
	if rec.State != store.IngestProcessing && rec.State != store.IngestCompleted {
		t.Fatalf("after process: %s", rec.State)
	}
	rec = waitDone(t, env.d, rec.ID)
	if rec.State != store.IngestCompleted || rec.Progress != 1 || rec.TilesetID != rec.DocumentID || len(rec.Errors) != 0 {
		t.Fatalf("done: %+v", rec)
	}
	e, ok := env.cat.ByID(rec.DocumentID)
	if !ok || e.Name != "zurich" || e.TileType() != "raster" {
		t.Fatalf("tileset %+v, %v", e, ok)
	}
	checkRasterTiles(t, filepath.Join(env.cat.Dir(), e.Tileset.Source), src, g)
	if left := regularFiles(root); len(left) != 0 {
		t.Errorf("objects left in S3 after completion: %v", left)
	}
	if left := regularFiles(filepath.Join(env.dir, "uploads")); len(left) != 0 {
		t.Errorf("files left in uploads: %v", left)
	}
	// Processing again answers the completed ingest.
	if again, err := env.d.Process(ctx, rec.ID, UploadResult{Type: UploadS3Multipart, Parts: parts}); err != nil || again.State != store.IngestCompleted {
		t.Errorf("process again: %v %v", again.State, err)
	}
}

// TestDatasetCancelS3 cancels an ingest with parts in S3: nothing stays in
// the bucket.
func TestDatasetCancelS3(t *testing.T) {
	s3, root := s3Blob(t)
	env := openDatasets(t, t.TempDir(), s3, DatasetOptions{}, nil)
	ctx := context.Background()
	data := bytes.Repeat([]byte("x"), blob.MinPartSize+100)
	rec, err := env.d.Create(ctx, DatasetCreate{Filename: "big.geojson", Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	putParts(t, rec, "", data)
	if len(regularFiles(root)) == 0 {
		t.Fatal("the parts are nowhere in the bucket")
	}
	if rec, err = env.d.Cancel(ctx, rec.ID); err != nil || rec.State != store.IngestCanceled || len(rec.Parts) != 0 {
		t.Fatalf("cancel: %+v %v", rec, err)
	}
	if left := regularFiles(root); len(left) != 0 {
		t.Errorf("objects left in S3 after cancel: %v", left)
	}
	if _, err := env.d.Process(ctx, rec.ID, UploadResult{Type: UploadS3Multipart, Parts: []blob.Part{{Number: 1, ETag: "x"}}}); !errors.Is(err, ErrState) {
		t.Errorf("process after cancel: %v, want ErrState", err)
	}
	if again, err := env.d.Cancel(ctx, rec.ID); err != nil || again.State != store.IngestCanceled {
		t.Errorf("cancel again: %v %v", again.State, err)
	}
}

// TestDatasetLocalMultipartAndReplace: with no S3 the server is the part
// target; wrong ETags are refused and leave the upload open; a second
// ingest replaces the tileset, keeping its id.
func TestDatasetLocalMultipartAndReplace(t *testing.T) {
	dir := t.TempDir()
	l, base := localBlob(t, dir)
	env := openDatasets(t, dir, l, DatasetOptions{PartSize: 64 << 10}, nil)
	ctx := context.Background()
	g := geotiff.Georef{EPSG: geotiff.EPSG4326, OriginX: 7.1, OriginY: 46.9, ScaleX: 0.0007, ScaleY: 0.0005}
	src := geoImage(200, 150, 0)
	data := encodeGeoTIFF(t, src, g)
	rec, err := env.d.Create(ctx, DatasetCreate{Filename: "bern.tiff", Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Parts) != 2 || !strings.HasPrefix(rec.Parts[0].URL, "/parts/") {
		t.Fatalf("parts %+v", rec.Parts)
	}
	parts := putParts(t, rec, base, data)
	// The server's rule is S3's: every part but the last has the minimum.
	bad := []blob.Part{parts[0], {Number: 2, ETag: `"0123456789abcdef0123456789abcdef"`}}
	if _, err := env.d.Process(ctx, rec.ID, UploadResult{Type: UploadS3Multipart, Parts: bad}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("wrong etag: %v, want ErrInvalid", err)
	}
	if got, _ := env.d.Get(ctx, rec.ID); got.State != store.IngestUpload || len(got.Parts) != 2 {
		t.Fatalf("after a refused process: %s, %d parts", got.State, len(got.Parts))
	}
	if _, err := env.d.Process(ctx, rec.ID, UploadResult{Type: UploadS3Multipart, Parts: parts}); err != nil {
		t.Fatal(err)
	}
	rec = waitDone(t, env.d, rec.ID)
	if rec.State != store.IngestCompleted {
		t.Fatalf("done: %+v", rec)
	}
	e, _ := env.cat.ByID(rec.DocumentID)
	checkRasterTiles(t, filepath.Join(env.cat.Dir(), e.Tileset.Source), src, g)

	// Replace it with another picture of the same place, by resumable upload.
	src2 := geoImage(200, 150, 100)
	data2 := encodeGeoTIFF(t, src2, g)
	rep, err := env.d.Create(ctx, DatasetCreate{Filename: "bern-2.tif", Size: int64(len(data2)), DocumentID: e.ID, UploadTypes: []string{UploadResumable}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.TilesetID != e.ID || rep.UploadType != UploadResumable || len(rep.Parts) != 0 {
		t.Fatalf("replace ingest %+v", rep)
	}
	half := int64(len(data2) / 2)
	if rep, err = env.d.Upload(ctx, rep.ID, bytes.NewReader(data2[:half]), &Range{Start: 0, End: half - 1, Total: int64(len(data2))}); err != nil || rep.Received != half {
		t.Fatalf("first chunk: %d, %v", rep.Received, err)
	}
	if _, err := env.d.Process(ctx, rep.ID, UploadResult{Type: UploadResumable}); !errors.Is(err, ErrState) {
		t.Fatalf("process incomplete: %v, want ErrState", err)
	}
	if rep, err = env.d.Upload(ctx, rep.ID, bytes.NewReader(data2[half:]), &Range{Start: half, End: int64(len(data2)) - 1, Total: int64(len(data2))}); err != nil || rep.Received != int64(len(data2)) {
		t.Fatalf("second chunk: %d, %v", rep.Received, err)
	}
	if _, err := env.d.Process(ctx, rep.ID, UploadResult{Type: UploadResumable}); err != nil {
		t.Fatal(err)
	}
	if rep = waitDone(t, env.d, rep.ID); rep.State != store.IngestCompleted || rep.TilesetID != e.ID {
		t.Fatalf("replace done: %+v", rep)
	}
	e2, _ := env.cat.ByID(e.ID)
	if e2.Name != e.Name || len(env.cat.List()) != 1 {
		t.Errorf("replaced tileset %q, %d tilesets", e2.Name, len(env.cat.List()))
	}
	checkRasterTiles(t, filepath.Join(env.cat.Dir(), e2.Tileset.Source), src2, g)
	if left := regularFiles(filepath.Join(dir, "blobs")); len(left) != 0 {
		t.Errorf("blobs left: %v", left)
	}
}

// TestDatasetRefusals: what a client gets wrong is refused at creation.
func TestDatasetRefusals(t *testing.T) {
	dir := t.TempDir()
	l, _ := localBlob(t, dir)
	env := openDatasets(t, dir, l, DatasetOptions{MaxSize: 1000}, nil)
	ctx := context.Background()
	name255 := strings.Repeat("é", 125) + "a.tif" // 250 + 5 bytes
	for _, tc := range []struct {
		req  DatasetCreate
		want error
	}{
		{DatasetCreate{Filename: name255, Size: 10}, nil},
		{DatasetCreate{Filename: "a" + name255, Size: 10}, ErrInvalid},
		{DatasetCreate{Filename: "", Size: 10}, ErrInvalid},
		{DatasetCreate{Filename: "a.tif", Size: 0}, ErrInvalid},
		{DatasetCreate{Filename: "a.tif", Size: 1001}, ErrTooLarge},
		{DatasetCreate{Filename: "a.shp", Size: 10}, ErrInvalid},
		{DatasetCreate{Filename: "a.tif", Size: 10, OutputType: OutputVector}, ErrInvalid},
		{DatasetCreate{Filename: "a.geojson", Size: 10, OutputType: OutputRaster}, ErrInvalid},
		{DatasetCreate{Filename: "a.mbtiles", Size: 10, OutputType: "pdf"}, ErrInvalid},
		{DatasetCreate{Filename: "a.tif", Size: 10, UploadTypes: []string{"drive_resumable"}}, ErrInvalid},
		{DatasetCreate{Filename: "a.tif", Size: 10, DocumentID: "7f0c3c5e-8a37-4bde-9a51-5b0b4f8f1f00"}, ErrNotFound},
		{DatasetCreate{Filename: "a.tif", Size: 10, DocumentID: "nope"}, ErrNotFound},
	} {
		_, err := env.d.Create(ctx, tc.req)
		if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%q %d %q %v: error %v, want %v", tc.req.Filename, tc.req.Size, tc.req.OutputType, tc.req.UploadTypes, err, tc.want)
		}
	}
	if _, err := env.d.Get(ctx, "7f0c3c5e-8a37-4bde-9a51-5b0b4f8f1f00"); !errors.Is(err, ErrNotFound) {
		t.Errorf("get unknown: %v", err)
	}
}

// TestDatasetBadFileFails: a file that is not what it claims ends failed
// with a message, and its bytes are removed.
func TestDatasetBadFileFails(t *testing.T) {
	dir := t.TempDir()
	l, _ := localBlob(t, dir)
	env := openDatasets(t, dir, l, DatasetOptions{}, nil)
	ctx := context.Background()
	var plain bytes.Buffer
	if err := png.Encode(&plain, geoImage(4, 4, 0)); err != nil {
		t.Fatal(err)
	}
	tiffNoGeo := append([]byte("II*\x00\x08\x00\x00\x00"), make([]byte, 40)...)
	for _, data := range [][]byte{tiffNoGeo, plain.Bytes()} {
		rec, err := env.d.Create(ctx, DatasetCreate{Filename: "x.tif", Size: int64(len(data)), UploadTypes: []string{UploadResumable}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.d.Upload(ctx, rec.ID, bytes.NewReader(data), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := env.d.Process(ctx, rec.ID, UploadResult{}); err != nil {
			t.Fatal(err)
		}
		rec = waitDone(t, env.d, rec.ID)
		if rec.State != store.IngestFailed || len(rec.Errors) != 1 || rec.Errors[0] == "" {
			t.Errorf("bad file: %+v", rec)
		}
		if _, err := os.Stat(env.d.partPath(rec.ID)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the upload of a failed ingest stays: %v", err)
		}
	}
	if len(env.cat.List()) != 0 {
		t.Error("a failed ingest made a tileset")
	}
}

// TestDatasetQuota: an ingest that would pass the storage quota is refused
// with ErrQuota; ingests under way count.
func TestDatasetQuota(t *testing.T) {
	dir := t.TempDir()
	l, _ := localBlob(t, dir)
	env := openDatasets(t, dir, l, DatasetOptions{Quota: 1000}, nil)
	ctx := context.Background()
	if _, err := env.d.Create(ctx, DatasetCreate{Filename: "a.tif", Size: 1001}); !errors.Is(err, ErrQuota) {
		t.Errorf("over quota: %v, want ErrQuota", err)
	}
	a, err := env.d.Create(ctx, DatasetCreate{Filename: "a.tif", Size: 600})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.d.Create(ctx, DatasetCreate{Filename: "b.tif", Size: 600}); !errors.Is(err, ErrQuota) {
		t.Errorf("with an ingest under way: %v, want ErrQuota", err)
	}
	if _, err := env.d.Cancel(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.d.Create(ctx, DatasetCreate{Filename: "b.tif", Size: 600}); err != nil {
		t.Errorf("after the cancel freed its share: %v", err)
	}
}

// TestDatasetCrashMidProcessing stops the service while a tileset is
// built and before it enters the catalog (or just after it did, before the
// ingest is marked completed), and opens it again: nothing half-made is
// visible in between; the reopened service finishes the ingest, or cancels
// it leaving no bytes.
func TestDatasetCrashMidProcessing(t *testing.T) {
	for _, tc := range []struct{ stage, then string }{{"commit", "resume"}, {"commit", "cancel"}, {"committed", "resume"}} {
		t.Run(tc.stage+"-"+tc.then, func(t *testing.T) {
			dir := t.TempDir()
			l, base := localBlob(t, dir)
			reached := make(chan string, 1)
			hold := func(ctx context.Context, stage, id string) error {
				if stage != tc.stage {
					return nil
				}
				reached <- id
				<-ctx.Done() // the service stops here
				return ctx.Err()
			}
			env := openDatasets(t, dir, l, DatasetOptions{}, hold)
			ctx := context.Background()
			g := geotiff.Georef{EPSG: geotiff.EPSG3857, OriginX: 0, OriginY: 0, ScaleX: 100, ScaleY: 100}
			src := geoImage(300, 200, 9)
			data := encodeGeoTIFF(t, src, g)
			rec, err := env.d.Create(ctx, DatasetCreate{Filename: "crash.tif", Size: int64(len(data))})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := env.d.Process(ctx, rec.ID, UploadResult{Type: UploadS3Multipart, Parts: putParts(t, rec, base, data)}); err != nil {
				t.Fatal(err)
			}
			<-reached
			env.d.Close()
			env.db.Close()

			env2 := openDatasets(t, dir, l, DatasetOptions{}, nil, tc.then == "resume")
			if tc.then == "cancel" {
				// Between the two runs the ingest waits, and a fresh
				// catalog shows no tileset.
				if got, _ := env2.d.Get(ctx, rec.ID); got.State != store.IngestProcessing {
					t.Fatalf("after the stop: %s", got.State)
				}
				if len(env2.cat.List()) != 0 {
					t.Fatal("a tileset is visible before processing finished")
				}
				got, err := env2.d.Cancel(ctx, rec.ID)
				if err != nil || got.State != store.IngestCanceled {
					t.Fatalf("cancel: %+v %v", got, err)
				}
				if len(env2.cat.List()) != 0 {
					t.Error("a cancelled ingest made a tileset")
				}
			} else {
				got := waitDone(t, env2.d, rec.ID)
				if got.State != store.IngestCompleted || got.Progress != 1 {
					t.Fatalf("resumed: %+v", got)
				}
				e, ok := env2.cat.ByID(rec.DocumentID)
				if !ok || len(env2.cat.List()) != 1 {
					t.Fatalf("after the resume: %d tilesets", len(env2.cat.List()))
				}
				checkRasterTiles(t, filepath.Join(env2.cat.Dir(), e.Tileset.Source), src, g)
			}
			if left := append(regularFiles(filepath.Join(dir, "blobs")), regularFiles(filepath.Join(dir, "uploads"))...); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			// The tiles directory holds no temporary output.
			des, _ := os.ReadDir(filepath.Join(dir, "tiles"))
			for _, de := range des {
				if catalog.IsTemporary(de.Name()) {
					t.Errorf("temporary file left: %s", de.Name())
				}
			}
		})
	}
}

// TestDatasetLeaseTakeover: a processing ingest whose node died (its lease
// lapsed, never given back) is taken up and finished by another node; one
// whose lease is alive is left alone.
func TestDatasetLeaseTakeover(t *testing.T) {
	dir := t.TempDir()
	l, base := localBlob(t, dir)
	env := openDatasets(t, dir, l, DatasetOptions{}, nil, false) // no worker yet
	ctx := context.Background()
	g := geotiff.Georef{EPSG: geotiff.EPSG4326, OriginX: 10, OriginY: 50, ScaleX: 0.01, ScaleY: 0.01}
	src := geoImage(64, 48, 3)
	var recs []DatasetRecord
	for _, name := range []string{"dead.tif", "alive.tif"} {
		data := encodeGeoTIFF(t, src, g)
		rec, err := env.d.Create(ctx, DatasetCreate{Filename: name, Size: int64(len(data))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.d.Process(ctx, rec.ID, UploadResult{Type: UploadS3Multipart, Parts: putParts(t, rec, base, data)}); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	// Another node holds both: one lease lapsed a minute ago, one lasts an hour.
	now := time.Now()
	for i, until := range []time.Time{now.Add(-time.Minute), now.Add(time.Hour)} {
		if ok, err := env.db.ClaimIngest(ctx, recs[i].ID, "other-node", until.UTC().Format(store.LeaseTime), now.Add(-2*time.Hour).UTC().Format(store.LeaseTime)); !ok || err != nil {
			t.Fatalf("claim as the other node: %v %v", ok, err)
		}
	}
	env.d.Start()
	if got := waitDone(t, env.d, recs[0].ID); got.State != store.IngestCompleted {
		t.Fatalf("lapsed lease: %+v", got)
	}
	if _, ok := env.cat.ByID(recs[0].DocumentID); !ok {
		t.Fatal("no tileset from the taken-over ingest")
	}
	got, _ := env.d.Get(ctx, recs[1].ID)
	if got.State != store.IngestProcessing || got.LeaseOwner != "other-node" {
		t.Errorf("live lease: %s held by %q", got.State, got.LeaseOwner)
	}
}

// TestDatasetExpire: an ingest still uploading after the expiry is
// cancelled with its parts.
func TestDatasetExpire(t *testing.T) {
	dir := t.TempDir()
	l, base := localBlob(t, dir)
	now := time.Now()
	clock := func() time.Time { return now }
	env := openDatasets(t, dir, l, DatasetOptions{Expiry: time.Hour, Now: clock}, nil, false)
	ctx := context.Background()
	data := bytes.Repeat([]byte("{}"), 50)
	old, err := env.d.Create(ctx, DatasetCreate{Filename: "old.geojson", Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	putParts(t, old, base, data)
	if ids, err := env.d.Expire(ctx); err != nil || len(ids) != 0 {
		t.Fatalf("fresh upload expired: %v %v", ids, err)
	}
	now = now.Add(61 * time.Minute)
	ids, err := env.d.Expire(ctx)
	if err != nil || len(ids) != 1 || ids[0] != old.ID {
		t.Fatalf("expire: %v %v", ids, err)
	}
	if got, _ := env.d.Get(ctx, old.ID); got.State != store.IngestCanceled {
		t.Errorf("expired ingest is %s", got.State)
	}
	if left := regularFiles(filepath.Join(dir, "blobs")); len(left) != 0 {
		t.Errorf("left after expiry: %v", left)
	}
}

// TestAdminIngestGeoTIFF: the admin API's tileset ingest takes a GeoTIFF
// too, through the same conversion.
func TestAdminIngestGeoTIFF(t *testing.T) {
	svc := reopen(t, t.TempDir(), Options{})
	g := geotiff.Georef{EPSG: geotiff.EPSG4326, OriginX: 2.2, OriginY: 48.9, ScaleX: 0.002, ScaleY: 0.002}
	src := geoImage(120, 90, 5)
	rec := uploaded(t, svc, "paris.tiff", encodeGeoTIFF(t, src, g))
	e, err := svc.Process(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "paris" || e.TileType() != "raster" {
		t.Fatalf("tileset %q %q", e.Name, e.TileType())
	}
	checkRasterTiles(t, filepath.Join(svc.cat.Dir(), e.Tileset.Source), src, g)
}

// TestDatasetPurge: the records of finished dataset ingests (completed,
// canceled, failed) are purged once they are older than the retention;
// ingests under way, younger records and the admin API's ingests stay.
func TestDatasetPurge(t *testing.T) {
	dir := t.TempDir()
	l, _ := localBlob(t, dir)
	now := time.Now()
	clock := func() time.Time { return now }
	env := openDatasets(t, dir, l, DatasetOptions{Retention: 48 * time.Hour, Now: clock}, nil, false)
	ctx := context.Background()
	create := func(name string) DatasetRecord {
		t.Helper()
		rec, err := env.d.Create(ctx, DatasetCreate{Filename: name, Size: 100, UploadTypes: []string{UploadResumable}})
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	canceled, failed, completed, uploading := create("c.geojson"), create("f.geojson"), create("d.geojson"), create("u.geojson")
	if _, err := env.d.Cancel(ctx, canceled.ID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		id, state string
	}{{failed.ID, store.IngestFailed}, {completed.ID, store.IngestCompleted}} {
		in, err := env.db.Ingest(ctx, s.id)
		if err != nil {
			t.Fatal(err)
		}
		in.State = s.state
		if _, err := env.db.UpdateIngest(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	admin, err := env.db.CreateIngest(ctx, store.Ingest{ID: "admin-done", DocumentID: "x", Filename: "a.mbtiles", Size: 1, State: store.IngestDone})
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := env.d.Purge(ctx); err != nil || len(ids) != 0 {
		t.Fatalf("purged young records: %v %v", ids, err)
	}
	now = now.Add(47 * time.Hour)
	if ids, err := env.d.Purge(ctx); err != nil || len(ids) != 0 {
		t.Fatalf("purged records within the retention: %v %v", ids, err)
	}
	now = now.Add(2 * time.Hour)
	ids, err := env.d.Purge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	want := []string{canceled.ID, failed.ID, completed.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("purged %v, want %v", ids, want)
	}
	for _, id := range want {
		if _, err := env.d.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("GET of purged %s: %v, want ErrNotFound", id, err)
		}
	}
	if rec, err := env.d.Get(ctx, uploading.ID); err != nil || rec.State != store.IngestUpload {
		t.Errorf("the upload under way: %+v %v", rec, err)
	}
	if _, err := env.db.Ingest(ctx, admin.ID); err != nil {
		t.Errorf("the admin API's ingest: %v", err)
	}
}
