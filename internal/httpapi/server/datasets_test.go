package server

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/image/tiff"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/httpapi/account"
	"github.com/tesseramaps/tessera/internal/pgtest"
)

// datasetImage is the source picture of the dataset tests: 4x4-pixel
// blocks of distinct colours.
func datasetImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x / 4 * 9), uint8(y / 4 * 11), uint8(x/4 + y/4), 255})
		}
	}
	return img
}

// gdalGeoTIFF makes a deflate-compressed GeoTIFF in EPSG:4326 of img
// with gdal_translate, its upper left corner at (west, north) and square
// pixels of size degrees.
func gdalGeoTIFF(t *testing.T, img *image.NRGBA, west, north, size float64) []byte {
	t.Helper()
	translate := fixtures.Tool(t, "gdal_translate")
	dir := t.TempDir()
	plain, out := filepath.Join(dir, "plain.tif"), filepath.Join(dir, "geo.tif")
	f, err := os.Create(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := tiff.Encode(f, img, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b := img.Bounds()
	ff := func(v float64) string { return fmt.Sprint(v) }
	args := []string{"-q", "-a_srs", "EPSG:4326", "-a_ullr", ff(west), ff(north), ff(west + float64(b.Dx())*size), ff(north - float64(b.Dy())*size),
		"-co", "COMPRESS=DEFLATE", plain, out}
	if msg, err := exec.Command(translate, args...).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v: %s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ingestView is the JSON answer of the dataset ingest endpoints.
type ingestView = account.DatasetIngest

// plainPut PUTs data to u as a browser would, without credentials.
func plainPut(t *testing.T, u string, data []byte, headers ...string) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, u, bytes.NewReader(data))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("ETag"), body
}

// awaitIngest reads the ingest until it leaves the processing state.
func (e *testEnv) awaitIngest(secret, id string) ingestView {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := e.account("GET", "/datasets/ingest/"+id, secret, nil)
		if r.status != 200 {
			e.t.Fatalf("get ingest: %d %s", r.status, r.body)
		}
		v := decodeJSON[ingestView](e.t, r.body)
		if v.State != "processing" {
			return v
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("ingest %s still processing", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkTilePixels fetches the tile z/x/y of the tileset through the public
// API and compares every 9th pixel with the source pixel under its centre
// (EPSG:4326 source at west/north with square pixels of size degrees).
func (e *testEnv) checkTilePixels(name string, z, x, y int, src *image.NRGBA, west, north, size float64) {
	e.t.Helper()
	r := e.do("GET", fmt.Sprintf("/tiles/%s/%d/%d/%d.png", name, z, x, y), nil)
	if r.status != 200 {
		e.t.Fatalf("tile %d/%d/%d: %d %s", z, x, y, r.status, r.body)
	}
	tile, err := png.Decode(bytes.NewReader(r.body))
	if err != nil {
		e.t.Fatal(err)
	}
	n, checked := math.Exp2(float64(z)), 0
	for py := 4; py < tile.Bounds().Dy(); py += 9 {
		for px := 4; px < tile.Bounds().Dx(); px += 9 {
			lon := (float64(x)+(float64(px)+0.5)/float64(tile.Bounds().Dx()))/n*360 - 180
			lat := math.Atan(math.Sinh(math.Pi*(1-2*(float64(y)+(float64(py)+0.5)/float64(tile.Bounds().Dy()))/n))) * 180 / math.Pi
			fc, fr := (lon-west)/size, (north-lat)/size
			if fc < 0 || fr < 0 || fc >= float64(src.Bounds().Dx()) || fr >= float64(src.Bounds().Dy()) ||
				math.Abs(fc-math.Round(fc)) < 1e-6 || math.Abs(fr-math.Round(fr)) < 1e-6 {
				continue
			}
			got := color.NRGBAModel.Convert(tile.At(px, py)).(color.NRGBA)
			if want := src.NRGBAAt(int(fc), int(fr)); got != want {
				e.t.Fatalf("tile %d/%d/%d pixel (%d,%d) = %v, want source (%d,%d) = %v", z, x, y, px, py, got, int(fc), int(fr), want)
			}
			checked++
		}
	}
	if checked < 100 {
		e.t.Fatalf("only %d pixels of tile %d/%d/%d over the image", checked, z, x, y)
	}
}

// TestDatasetIngestS3 runs a dataset ingest through the account API with
// S3 storage (versitygw): the part goes straight to S3 by a presigned URL,
// process names its ETag, and the raster tileset made from a GDAL GeoTIFF
// serves the source's pixels; cancelling leaves the bucket empty; the
// storage quota answers 403.
func TestDatasetIngestS3(t *testing.T) {
	endpoint, root := fixtures.VersityGW(t, "datasetkey", "datasetsecret1")
	if err := os.Mkdir(filepath.Join(root, "hosted"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "datasetkey")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "datasetsecret1")
	e := newEnv(t, func(c *config.Config) {
		c.StorageURL = "s3://hosted/uploads?endpoint=" + endpoint + "&region=us-east-1&path_style=true"
		c.StorageQuotaMB = 4
	})
	secret := e.serviceToken("uploader")
	const west, north, size = 8.0, 47.5, 0.002 // 0.002 degree pixels: zoom 10
	src := datasetImage(400, 300)
	data := gdalGeoTIFF(t, src, west, north, size)

	if r := e.do("POST", "/v1/datasets/ingest", strings.NewReader(`{"filename":"a.tif","size":10}`)); r.status != 401 {
		t.Errorf("without a token: %d", r.status)
	}
	r := e.account("POST", "/datasets/ingest", secret, map[string]any{
		"filename": "alps.tif", "size": len(data), "output": map[string]any{"type": "raster_tileset"},
		"supported_upload_types": []string{"s3_multipart"},
	})
	if r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if !strings.Contains(string(r.body), `"document_id":null`) || !strings.Contains(string(r.body), `"errors":null`) || !strings.Contains(string(r.body), `"progress":0`) {
		t.Errorf("create answer %s", r.body)
	}
	v := decodeJSON[ingestView](t, r.body)
	if v.State != "upload" || v.Upload == nil || v.Upload.Type != "s3_multipart" || len(v.Upload.Parts) != 1 || v.Upload.PartSize < 5<<20 ||
		!strings.HasPrefix(v.Upload.Parts[0].URL, endpoint+"/hosted/uploads/ingests/"+v.ID) || v.UploadURL != v.Upload.Parts[0].URL {
		t.Fatalf("created %s", r.body)
	}
	status, etag, body := plainPut(t, v.Upload.Parts[0].URL, data)
	if status != 200 || etag == "" {
		t.Fatalf("PUT part: %d %s", status, body)
	}
	r = e.account("POST", "/datasets/ingest/"+v.ID+"/process", secret, map[string]any{
		"upload_result": map[string]any{"type": "s3_multipart", "parts": []map[string]any{{"part_id": 1, "etag": etag}}},
	})
	if r.status != 200 {
		t.Fatalf("process: %d %s", r.status, r.body)
	}
	v = e.awaitIngest(secret, v.ID)
	if v.State != "completed" || v.DocumentID == nil || v.Progress != 1 || v.Upload != nil {
		t.Fatalf("completed %+v", v)
	}
	if r := e.account("GET", "/tiles/"+*v.DocumentID, secret, nil); r.status != 200 {
		t.Fatalf("the new tileset: %d %s", r.status, r.body)
	}
	// Zoom 10 tiles over the picture: x 534, y 358..359 (47.5 N .. 46.9 N).
	e.checkTilePixels("alps", 10, 534, 359, src, west, north, size)
	e.checkTilePixels("alps", 10, 534, 358, src, west, north, size)
	if left := bucketFiles(root, "tiles"); len(left) != 0 {
		t.Errorf("objects left after completion: %v", left)
	}
	// The tilesets are shared in the storage (the files of the data
	// directory live there too: see storage.go).
	if _, err := os.Stat(filepath.Join(root, "hosted", "uploads", "tiles", "alps.mbtiles")); err != nil {
		t.Errorf("the tileset is not in the storage: %v", err)
	}

	// Cancelling an upload with a part in S3 leaves nothing there.
	r = e.account("POST", "/datasets/ingest", secret, map[string]any{"filename": "b.geojson", "size": 100})
	v = decodeJSON[ingestView](t, r.body)
	if r.status != 200 || v.Upload == nil {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if status, _, body := plainPut(t, v.Upload.Parts[0].URL, bytes.Repeat([]byte(" "), 100)); status != 200 {
		t.Fatalf("PUT: %d %s", status, body)
	}
	if len(bucketFiles(root, "tiles")) == 0 {
		t.Fatal("the part is not in the bucket")
	}
	r = e.account("POST", "/datasets/ingest/"+v.ID+"/cancel", secret, nil)
	if v = decodeJSON[ingestView](t, r.body); r.status != 200 || v.State != "canceled" {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	if left := bucketFiles(root, "tiles"); len(left) != 0 {
		t.Errorf("objects left after cancel: %v", left)
	}
	if r := e.account("POST", "/datasets/ingest/"+v.ID+"/process", secret, map[string]any{}); r.status != 409 || !isMessage(r.body) {
		t.Errorf("process a cancelled ingest: %d %s", r.status, r.body)
	}

	// The quota (4 MiB) counts the tilesets: 5 MiB more is refused.
	r = e.account("POST", "/datasets/ingest", secret, map[string]any{"filename": "big.mbtiles", "size": 5 << 20})
	if r.status != 403 || !isMessage(r.body) || !strings.Contains(string(r.body), "quota") {
		t.Errorf("over quota: %d %s", r.status, r.body)
	}
}

// bucketFiles lists the files versitygw keeps under root, but its locks
// and the shared folder of the data directory named (its files are kept
// in the storage for good).
func bucketFiles(root, shared string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.Contains(p, "/.vgwlocks/") && !strings.Contains(p, "/"+shared+"/") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestDatasetIngestLocal: with no S3 the server takes the parts itself at
// signed URLs (no credentials; a tampered one is 403), and the resumable
// upload takes chunks with Content-Range; bad requests are 4xx with a
// message.
func TestDatasetIngestLocal(t *testing.T) {
	e := newEnv(t, nil)
	secret := e.serviceToken("uploader")
	const west, north, size = -3.0, 40.6, 0.004
	src := datasetImage(200, 150)
	data := gdalGeoTIFF(t, src, west, north, size)

	r := e.account("POST", "/datasets/ingest", secret, map[string]any{"filename": "madrid.tif", "size": len(data)})
	v := decodeJSON[ingestView](t, r.body)
	if r.status != 200 || v.Upload == nil || len(v.Upload.Parts) != 1 || !strings.HasPrefix(v.Upload.Parts[0].URL, e.http.URL+account.PartsPath+"/") {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	u := v.Upload.Parts[0].URL
	if status, _, body := plainPut(t, strings.Replace(u, "signature=", "signature=00", 1), data[:10]); status != 403 || !isMessage(body) {
		t.Errorf("tampered part URL: %d %s", status, body)
	}
	status, etag, body := plainPut(t, u, data)
	if status != 200 || etag == "" {
		t.Fatalf("PUT part: %d %s", status, body)
	}
	if r := e.account("POST", "/datasets/ingest/"+v.ID+"/process", secret, map[string]any{
		"upload_result": map[string]any{"type": "s3_multipart", "parts": []map[string]any{{"part_id": 1, "etag": `"0000"`}}},
	}); r.status != 400 || !isMessage(r.body) {
		t.Errorf("wrong etag: %d %s", r.status, r.body)
	}
	r = e.account("POST", "/datasets/ingest/"+v.ID+"/process", secret, map[string]any{
		"upload_result": map[string]any{"type": "s3_multipart", "parts": []map[string]any{{"part_id": 1, "etag": etag}}},
	})
	if r.status != 200 {
		t.Fatalf("process: %d %s", r.status, r.body)
	}
	if v = e.awaitIngest(secret, v.ID); v.State != "completed" || v.DocumentID == nil {
		t.Fatalf("completed %+v", v)
	}
	// Zoom 9 (0.004 degree pixels): x 251, y 193 holds the north-west part.
	e.checkTilePixels("madrid", 9, 251, 193, src, west, north, size)

	// Replace it by a resumable upload in two chunks.
	src2 := datasetImage(200, 150)
	for i := range src2.Pix {
		if i%4 == 0 {
			src2.Pix[i] = 255 - src2.Pix[i]
		}
	}
	data2 := gdalGeoTIFF(t, src2, west, north, size)
	r = e.account("POST", "/datasets/"+*v.DocumentID+"/ingest", secret, map[string]any{"filename": "madrid-2.tif", "size": len(data2), "supported_upload_types": []string{"resumable"}})
	rv := decodeJSON[ingestView](t, r.body)
	if r.status != 200 || rv.Upload == nil || rv.Upload.Type != "resumable" || rv.DocumentID == nil || *rv.DocumentID != *v.DocumentID ||
		rv.UploadURL != e.http.URL+"/v1/datasets/ingest/"+rv.ID+"/upload" {
		t.Fatalf("replace: %d %s", r.status, r.body)
	}
	half := len(data2) / 2
	status, _, body = plainPut(t, rv.UploadURL, data2[:half], "Content-Range", fmt.Sprintf("bytes 0-%d/%d", half-1, len(data2)))
	if status != 202 || !strings.Contains(string(body), fmt.Sprintf(`"received":%d`, half)) {
		t.Fatalf("first chunk: %d %s", status, body)
	}
	status, _, body = plainPut(t, rv.UploadURL, data2[half:], "Content-Range", fmt.Sprintf("bytes %d-%d/%d", half, len(data2)-1, len(data2)))
	if status != 200 {
		t.Fatalf("second chunk: %d %s", status, body)
	}
	if r := e.account("POST", "/datasets/ingest/"+rv.ID+"/process", secret, nil); r.status != 200 {
		t.Fatalf("process: %d %s", r.status, r.body)
	}
	if rv = e.awaitIngest(secret, rv.ID); rv.State != "completed" || *rv.DocumentID != *v.DocumentID {
		t.Fatalf("replaced %+v", rv)
	}
	e.checkTilePixels("madrid", 9, 251, 193, src2, west, north, size)

	// Refusals.
	for _, tc := range []struct {
		path string
		body any
		want int
	}{
		{"/datasets/ingest", map[string]any{"filename": strings.Repeat("a", 252) + ".tif", "size": 10}, 400},
		{"/datasets/ingest", map[string]any{"filename": "a.tif"}, 400},
		{"/datasets/ingest", map[string]any{"size": 10}, 400},
		{"/datasets/ingest", map[string]any{"filename": "a.tif", "size": 10, "output": map[string]any{"type": "vector_tileset"}}, 400},
		{"/datasets/ingest", map[string]any{"filename": "a.tif", "size": 10, "supported_upload_types": []string{"drive_resumable"}}, 400},
		{"/datasets/ingest", map[string]any{"filename": "a.tif", "size": 1 << 40}, 413},
		{"/datasets/not-a-uuid/ingest", map[string]any{"filename": "a.tif", "size": 10}, 400},
		{"/datasets/7f0c3c5e-8a37-4bde-9a51-5b0b4f8f1f00/ingest", map[string]any{"filename": "a.tif", "size": 10}, 404},
	} {
		if r := e.account("POST", tc.path, secret, tc.body); r.status != tc.want || !isMessage(r.body) {
			t.Errorf("%s %v: %d %s, want %d", tc.path, tc.body, r.status, r.body, tc.want)
		}
	}
	if r := e.account("POST", "/datasets/ingest", secret, map[string]any{"filename": strings.Repeat("a", 251) + ".tif", "size": 10}); r.status != 200 {
		t.Errorf("a 255-byte filename: %d %s", r.status, r.body)
	}
	if r := e.account("GET", "/datasets/ingest/7f0c3c5e-8a37-4bde-9a51-5b0b4f8f1f00", secret, nil); r.status != 404 {
		t.Errorf("unknown ingest: %d", r.status)
	}
}

// TestDatasetQuotaRace starts many dataset ingest creations at once against
// a storage quota that admits exactly N of them: exactly N are created and
// the others answer 403, on SQLite (one server) and on PostgreSQL (two
// nodes sharing the database, the creations spread over both).
func TestDatasetQuotaRace(t *testing.T) {
	const creations, size = 24, 1 << 20
	quota := func(c *config.Config) { c.StorageQuotaMB = 10 }
	t.Run("sqlite", func(t *testing.T) {
		testQuotaRace(t, []*testEnv{newEnv(t, quota)}, creations, size)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.URL(t)
		testQuotaRace(t, []*testEnv{newNode(t, dsn, quota), newNode(t, dsn, quota)}, creations, size)
	})
}

func testQuotaRace(t *testing.T, nodes []*testEnv, creations int, size int64) {
	ctx := context.Background()
	secret := nodes[0].serviceToken("racer")
	used, err := nodes[0].srv.datasets.Used(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes[1:] {
		if u, err := n.srv.datasets.Used(ctx); err != nil || u != used {
			t.Fatalf("the nodes count %d and %d bytes (%v): the test needs the same tilesets on each", used, u, err)
		}
	}
	admits := int((10<<20 - used) / size)
	if admits < 1 || admits >= creations {
		t.Fatalf("the quota admits %d of %d creations (%d bytes used): not a race", admits, creations, used)
	}
	body := fmt.Sprintf(`{"filename":"race.geojson","size":%d,"supported_upload_types":["resumable"]}`, size)
	start := make(chan struct{})
	statuses := make(chan string, creations)
	var wg sync.WaitGroup
	for i := range creations {
		n := nodes[i%len(nodes)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req, _ := http.NewRequest("POST", n.http.URL+"/v1/datasets/ingest", strings.NewReader(body))
			req.Header.Set("Authorization", "Token "+secret)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				statuses <- err.Error()
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode == 403 && !isMessage(b) {
				statuses <- fmt.Sprintf("403 without a message: %s", b)
				return
			}
			statuses <- strconv.Itoa(res.StatusCode)
		}()
	}
	close(start)
	wg.Wait()
	close(statuses)
	count := map[string]int{}
	for s := range statuses {
		count[s]++
	}
	if count["200"] != admits || count["403"] != creations-admits || len(count) != 2 {
		t.Errorf("answers %v, want %d x 200 and %d x 403", count, admits, creations-admits)
	}
	for _, n := range nodes {
		if u, err := n.srv.datasets.Used(ctx); err != nil || u > 10<<20 {
			t.Errorf("after the race %d bytes are used of %d (%v)", u, 10<<20, err)
		}
	}
}
