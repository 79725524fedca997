package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/blob"
)

// chunks keeps the chunks of resumable uploads as objects of a shared
// store (S3), so that the chunks of one upload may arrive at any node: each
// chunk received whole is stored as ingests/<id>/chunks/<start>-<end>; the
// bytes received are the run of chunks from byte 0 without a gap; the
// node that processes the upload puts the chunks together in a local file.
type chunks struct{ files blob.Files }

// chunkObject is a stored chunk: bytes start..end (inclusive) of the file.
type chunkObject struct {
	key        string
	start, end int64
}

func chunkPrefix(id string) string { return "ingests/" + id + "/chunks/" }

func chunkKey(id string, start, end int64) string {
	return fmt.Sprintf("%s%015d-%015d", chunkPrefix(id), start, end)
}

// list returns an upload's chunks in the order of their start.
func (c chunks) list(ctx context.Context, id string) ([]chunkObject, error) {
	objs, err := c.files.List(ctx, chunkPrefix(id))
	if err != nil {
		return nil, fmt.Errorf("list the chunks of ingest %s: %w", id, err)
	}
	out := make([]chunkObject, 0, len(objs))
	for _, o := range objs {
		a, b, ok := strings.Cut(path.Base(o.Key), "-")
		start, err1 := strconv.ParseInt(a, 10, 64)
		end, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || end < start || o.Size != end-start+1 {
			continue // not a chunk this code stored whole
		}
		out = append(out, chunkObject{key: o.Key, start: start, end: end})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].start < out[j].start || out[i].start == out[j].start && out[i].end > out[j].end
	})
	return out, nil
}

// received is how many bytes from the start of the file the chunks hold
// without a gap.
func received(cs []chunkObject) int64 {
	var n int64
	for _, c := range cs {
		if c.start > n {
			break
		}
		n = max(n, c.end+1)
	}
	return n
}

// received lists an upload's chunks and returns the bytes received.
func (c chunks) received(ctx context.Context, id string) (int64, error) {
	cs, err := c.list(ctx, id)
	if err != nil {
		return 0, err
	}
	return received(cs), nil
}

// put stores the chunk file at p, which holds the bytes from start on.
func (c chunks) put(ctx context.Context, id, p string, start int64) error {
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("stat chunk file: %w", err)
	}
	if st.Size() == 0 {
		return nil
	}
	if _, err := c.files.Upload(ctx, chunkKey(id, start, start+st.Size()-1), p); err != nil {
		return fmt.Errorf("store a chunk of ingest %s: %w", id, err)
	}
	return nil
}

// assemble writes the size bytes of an upload into a new file at part,
// from its chunks in the order of their start (a chunk sent again over
// bytes received before carries the same bytes).
func (c chunks) assemble(ctx context.Context, id string, size int64, part string) error {
	cs, err := c.list(ctx, id)
	if err != nil {
		return err
	}
	if got := received(cs); got != size {
		return fmt.Errorf("%w: %d of %d bytes of the upload are stored", ErrInvalid, got, size)
	}
	if err := os.Remove(part); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove upload file: %w", err)
	}
	tmp := part + ".piece"
	defer os.Remove(tmp)
	for _, ch := range cs {
		if err := c.files.Download(ctx, ch.key, tmp); err != nil {
			if errors.Is(err, blob.ErrNotFound) {
				return fmt.Errorf("%w: a chunk of the upload is gone", ErrInvalid)
			}
			return fmt.Errorf("fetch a chunk of ingest %s: %w", id, err)
		}
		if err := commitChunk(tmp, part, ch.start); err != nil {
			return err
		}
		os.Remove(tmp)
	}
	return nil
}

// remove deletes an upload's chunks.
func (c chunks) remove(ctx context.Context, id string) error {
	cs, err := c.files.List(ctx, chunkPrefix(id))
	if err != nil {
		return fmt.Errorf("list the chunks of ingest %s: %w", id, err)
	}
	var errs []error
	for _, o := range cs {
		if err := c.files.Delete(ctx, o.Key); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
