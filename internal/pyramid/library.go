package pyramid

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// Meta is what an image says of itself besides its size.
type Meta struct {
	Description string
	Attribution string
}

// WriteMBTiles cuts the rows into a pyramid stored at path as MBTiles
// (metadata: name, description, attribution, format, type "image", width,
// height, tileSize, minzoom, maxzoom), built beside it and renamed into
// place: a failure leaves nothing at path.
func WriteMBTiles(ctx context.Context, src Rows, path, name string, meta Meta, opts Options) (Info, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Info{}, fmt.Errorf("make images folder: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	os.Remove(tmp)
	w, err := mbtiles.Create(tmp)
	if err != nil {
		return Info{}, err
	}
	info, err := Build(ctx, src, w, opts)
	if err == nil {
		format := opts.Format
		if format == "" {
			format = imageenc.PNG
		}
		err = w.SetMetadata(ctx, map[string]string{
			"name": name, "description": meta.Description, "attribution": meta.Attribution,
			"format": string(format), "type": "image", "version": "1",
			"width": strconv.Itoa(info.Width), "height": strconv.Itoa(info.Height), "tileSize": strconv.Itoa(TileSize),
			"minzoom": strconv.Itoa(info.MinZoom), "maxzoom": strconv.Itoa(info.MaxZoom),
		})
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return Info{}, fmt.Errorf("image %s: %w", name, err)
	}
	return info, nil
}

// Image is a stored pyramid.
type Image struct {
	ID string
	Info
	Meta
	// Format is the tiles' format (png, jpg or webp).
	Format  string
	reader  *mbtiles.Reader
	modTime time.Time
}

// Tile returns tile z/x/y, nil when it is not stored (transparent).
func (i *Image) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	return i.reader.Tile(ctx, z, x, y)
}

// Library serves the images of a folder: <id>.mbtiles each, opened on
// first use and again when the file changes.
type Library struct {
	Dir string
	// Fetch, when set, is asked for an image that is not in Dir: it may
	// put the file there (from the storage several nodes share) and
	// reports whether it exists.
	Fetch func(ctx context.Context, id string) (bool, error)

	mu     sync.Mutex
	images map[string]*Image
	// retired are the images replaced on disk: requests may still read
	// them, so they are closed with the library.
	retired []*Image
}

// ErrNotFound is returned for an image that does not exist.
var ErrNotFound = errors.New("image not found")

// Path is where image id is stored.
func (l *Library) Path(id string) string { return filepath.Join(l.Dir, id+".mbtiles") }

// Get returns image id.
func (l *Library) Get(ctx context.Context, id string) (*Image, error) {
	st, err := os.Stat(l.Path(id))
	if errors.Is(err, fs.ErrNotExist) && l.Fetch != nil && id != "" && !strings.ContainsAny(id, `/\`) && !strings.HasPrefix(id, ".") {
		if ok, ferr := l.Fetch(ctx, id); ferr != nil {
			return nil, fmt.Errorf("image %s: %w", id, ferr)
		} else if ok {
			st, err = os.Stat(l.Path(id))
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", id, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if img, ok := l.images[id]; ok && img.modTime.Equal(st.ModTime()) {
		return img, nil
	} else if ok {
		l.retired = append(l.retired, img)
		delete(l.images, id)
	}
	r, err := mbtiles.Open(ctx, l.Path(id))
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", id, err)
	}
	md, err := r.Metadata(ctx)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("image %s: %w", id, err)
	}
	img := &Image{ID: id, reader: r, modTime: st.ModTime(), Format: md["format"],
		Meta: Meta{Description: md["description"], Attribution: md["attribution"]}}
	num := func(k string) int {
		if err != nil {
			return 0
		}
		var v int
		v, err = strconv.Atoi(md[k])
		return v
	}
	img.Width, img.Height, img.TileSize, img.MinZoom, img.MaxZoom = num("width"), num("height"), num("tileSize"), num("minzoom"), num("maxzoom")
	if err != nil || img.Width <= 0 || img.Height <= 0 || img.TileSize != TileSize || img.MaxZoom != MaxZoomFor(img.Width, img.Height) {
		r.Close()
		return nil, fmt.Errorf("image %s: bad metadata (width, height, tileSize, maxzoom)", id)
	}
	if l.images == nil {
		l.images = map[string]*Image{}
	}
	l.images[id] = img
	return img, nil
}

// Close closes the open images.
func (l *Library) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, img := range l.images {
		img.reader.Close()
		delete(l.images, id)
	}
	for _, img := range l.retired {
		img.reader.Close()
	}
	l.retired = nil
}

// CheckID tells whether id can name an image: 1 to 128 ASCII letters,
// digits, '-', '_' or '.', not starting with '.'.
func CheckID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("image id %q: ids are 1 to 128 letters, digits, '-', '_' or '.', not starting with '.'", id)
	}
	return nil
}

// ValidID tells whether id is 1 to 128 ASCII letters, digits, '-', '_' or
// '.', not starting with '.': the ids of the data directory's items
// (images, sprite sets, datasets), safe as file names.
func ValidID(id string) bool {
	ok := id != "" && len(id) <= 128 && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	return ok
}
