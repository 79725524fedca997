package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tesseramaps/tessera/internal/opendata"
)

// Debian packages the demo fonts come from.
const (
	// NotoFontsPackage holds Noto Sans (SIL Open Font License 1.1).
	NotoFontsPackage = "fonts-noto-core"
	// OpenSansPackage holds Open Sans (Apache License 2.0).
	OpenSansPackage = "fonts-open-sans"
)

// FontsDir is the folder of DataDir the fonts are copied to.
const FontsDir = "fonts"

// maxFontFile bounds a font or licence file copied from a package.
const maxFontFile = 64 << 20

// fontFile is one file copied from a Debian package into DataDir/fonts.
type fontFile struct {
	pkg  string // Debian package
	path string // path inside the extracted package
	out  string // file name in DataDir/fonts
	// face is the name the glyph server gives the font (family and style
	// from its name table), as map styles list it in text-font; empty for
	// licence files.
	face string
}

// fontFiles are the fonts of the demo map and their licences.
var fontFiles = []fontFile{
	{NotoFontsPackage, "usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", "NotoSans-Regular.ttf", "Noto Sans Regular"},
	{NotoFontsPackage, "usr/share/fonts/truetype/noto/NotoSans-Bold.ttf", "NotoSans-Bold.ttf", "Noto Sans Bold"},
	{NotoFontsPackage, "usr/share/fonts/truetype/noto/NotoSans-Italic.ttf", "NotoSans-Italic.ttf", "Noto Sans Italic"},
	{NotoFontsPackage, "usr/share/doc/fonts-noto-core/copyright", "LICENSE-noto.txt", ""},
	{OpenSansPackage, "usr/share/fonts/truetype/open-sans/OpenSans-Regular.ttf", "OpenSans-Regular.ttf", "Open Sans Regular"},
	{OpenSansPackage, "usr/share/fonts/truetype/open-sans/OpenSans-Bold.ttf", "OpenSans-Bold.ttf", "Open Sans Bold"},
	{OpenSansPackage, "usr/share/doc/fonts-open-sans/copyright", "LICENSE-open-sans.txt", ""},
}

// debian returns the extracted root of a Debian package: the folder given in
// Options.DebianDirs, or one fetched (once per build) into the cache.
func (b *builder) debian(ctx context.Context, pkg string) (string, error) {
	if dir, ok := b.opts.DebianDirs[pkg]; ok {
		return dir, nil
	}
	return b.fetch("deb:"+pkg, func() (string, error) {
		return opendata.Debian(opendata.WithLogger(ctx, b.log), b.opts.CacheDir, pkg)
	})
}

// copyFonts copies the fonts of the demo map and their licences from the
// Debian packages into DataDir/fonts. Without apt (a machine that is not
// Debian-based) it logs a warning and leaves the fonts out: the map then
// shows no labels until fonts are added to that folder.
func (b *builder) copyFonts(ctx context.Context) error {
	dir := filepath.Join(b.opts.DataDir, FontsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fonts: %w", err)
	}
	roots := map[string]string{}
	for _, f := range fontFiles {
		root, ok := roots[f.pkg]
		if !ok {
			var err error
			root, err = b.debian(ctx, f.pkg)
			if errors.Is(err, opendata.ErrToolMissing) {
				b.log.Warn("demo: fonts left out: cannot fetch Debian packages", "package", f.pkg, "err", err)
				return nil
			}
			if err != nil {
				return fmt.Errorf("fonts: %w", err)
			}
			roots[f.pkg] = root
		}
		src := filepath.Join(root, filepath.FromSlash(f.path))
		if err := copyFile(ctx, src, filepath.Join(dir, f.out), maxFontFile); err != nil {
			return fmt.Errorf("fonts: %s: %w", f.pkg, err)
		}
	}
	b.log.Info("demo: fonts copied", "dir", dir, "files", len(fontFiles))
	return nil
}

// copyFile copies a regular file of at most maxBytes bytes, writing a
// temporary file beside dst and renaming it when complete.
func copyFile(ctx context.Context, src, dst string, maxBytes int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", src)
	}
	if fi.Size() == 0 || fi.Size() > maxBytes {
		return fmt.Errorf("%s: size %d outside 1..%d bytes", src, fi.Size(), maxBytes)
	}
	tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-"+strconv.Itoa(os.Getpid()))
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, maxBytes))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}
