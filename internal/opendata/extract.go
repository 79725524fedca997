package opendata

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits of ExtractTarGz.
const (
	// MaxArchiveEntries is the most entries an archive may hold.
	MaxArchiveEntries = 200_000
	// MaxArchiveBytes is the most bytes all files of an archive may expand to.
	MaxArchiveBytes int64 = 4 << 30
)

// ErrUnsafePath is wrapped by the error ExtractTarGz returns for an entry
// whose name would land outside the destination (absolute, or with ".."
// components).
var ErrUnsafePath = errors.New("unsafe path in archive")

// ExtractTarGz unpacks a gzip-compressed tar stream into dir, which must
// exist. When stripComponents is positive, that many leading path elements
// are removed from every entry name (npm tarballs keep their files under
// "package/") and entries left with no name are skipped. Only regular files
// and folders are written; symbolic and hard links, devices and other special
// entries are skipped. Entries that would escape dir are refused with an error
// wrapping ErrUnsafePath.
func ExtractTarGz(ctx context.Context, r io.Reader, dir string, stripComponents int) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("open gzip stream: %w", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	var entries int
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read tar: %w", err)
		}
		entries++
		if entries > MaxArchiveEntries {
			return fmt.Errorf("archive has more than %d entries", MaxArchiveEntries)
		}
		rel, err := entryPath(hdr.Name, stripComponents)
		if err != nil {
			return err
		}
		if rel == "" {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("create %s: %w", target, err)
			}
		case tar.TypeReg, tar.TypeRegA:
			if hdr.Size < 0 || total+hdr.Size > MaxArchiveBytes {
				return fmt.Errorf("archive expands to more than %d bytes", MaxArchiveBytes)
			}
			total += hdr.Size
			if err := writeFile(target, tr, hdr); err != nil {
				return err
			}
		default:
			logger(ctx).Debug("opendata: skipping special archive entry", "name", hdr.Name, "type", string(hdr.Typeflag))
		}
	}
}

// entryPath cleans an archive entry name, strips leading components and
// refuses names that leave the destination.
func entryPath(name string, strip int) (string, error) {
	if strings.ContainsRune(name, 0) || strings.Contains(name, "\\") {
		return "", fmt.Errorf("%w: %q", ErrUnsafePath, name)
	}
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: %q is absolute", ErrUnsafePath, name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q", ErrUnsafePath, name)
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", nil
	}
	parts := strings.Split(clean, "/")
	if strip >= len(parts) {
		return "", nil
	}
	return strings.Join(parts[strip:], "/"), nil
}

func writeFile(target string, r io.Reader, hdr *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(target), err)
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("create %s: %w", target, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, hdr.Size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	if n != hdr.Size {
		return fmt.Errorf("write %s: archive entry truncated (%d of %d bytes)", target, n, hdr.Size)
	}
	return nil
}
