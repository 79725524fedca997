package opendata

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Debian fetches the Debian package pkg (for example "iso-codes") with
// `apt-get download`, without installing it, and unpacks it with
// `dpkg-deb -x`. It returns the extracted root, under which the package's
// files keep their installed paths (usr/share/...). The root is
// cacheDir/deb/<pkg>_<version>/ and is reused when present; the version is
// the candidate apt knows about (`apt-cache show`), so the package lists must
// have been updated once (apt-get update).
func Debian(ctx context.Context, cacheDir, pkg string) (string, error) {
	if err := checkDebName(pkg); err != nil {
		return "", err
	}
	// apt-get and dpkg-deb run inside a temporary folder of the cache: a
	// relative cache path would be resolved again from there.
	root, err := filepath.Abs(filepath.Join(cacheDir, "deb"))
	if err != nil {
		return "", fmt.Errorf("debian %s: cache folder: %w", pkg, err)
	}
	for _, tool := range []string{"apt-get", "apt-cache", "dpkg-deb"} {
		if err := lookTool(tool); err != nil {
			return "", fmt.Errorf("debian %s: %w", pkg, err)
		}
	}
	version, err := debCandidate(ctx, pkg)
	if err != nil {
		return "", err
	}
	final := filepath.Join(root, pkg+"_"+strings.ReplaceAll(version, ":", "%3a"))
	if err := safeComponent(filepath.Base(final)); err != nil {
		return "", fmt.Errorf("debian %s: %w", pkg, err)
	}
	if exists(final) {
		logger(ctx).Debug("opendata: debian package cached", "package", pkg, "dir", final)
		return final, nil
	}

	tmp, err := tempDir(root, "deb")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	logger(ctx).Info("opendata: fetching debian package", "package", pkg, "version", version)
	start := time.Now()
	dl := filepath.Join(tmp, "download")
	if err := os.Mkdir(dl, 0o755); err != nil {
		return "", fmt.Errorf("debian %s: %w", pkg, err)
	}
	if _, err := run(ctx, dl, "apt-get", "download", "-q", pkg+"="+version); err != nil {
		return "", fmt.Errorf("debian %s: %w", pkg, err)
	}
	debs, err := filepath.Glob(filepath.Join(dl, "*.deb"))
	if err != nil || len(debs) != 1 {
		return "", fmt.Errorf("debian %s: apt-get download left %d .deb files", pkg, len(debs))
	}
	unpacked := filepath.Join(tmp, "root")
	if _, err := run(ctx, tmp, "dpkg-deb", "-x", debs[0], unpacked); err != nil {
		return "", fmt.Errorf("debian %s: %w", pkg, err)
	}
	if err := publish(unpacked, final); err != nil {
		return "", fmt.Errorf("debian %s: %w", pkg, err)
	}
	logger(ctx).Info("opendata: debian package ready", "package", pkg, "version", version, "dir", final,
		"elapsed", time.Since(start).Round(time.Millisecond))
	return final, nil
}

// debCandidate returns the version apt would download for pkg.
func debCandidate(ctx context.Context, pkg string) (string, error) {
	out, err := run(ctx, "", "apt-cache", "show", "--no-all-versions", pkg)
	if err != nil {
		return "", fmt.Errorf("debian %s: %w", pkg, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Version:"); ok {
			v = strings.TrimSpace(v)
			if v != "" {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("debian %s: apt-cache show gives no version", pkg)
}

// checkDebName accepts Debian package names: lower-case letters, digits and
// + - . (at least two characters, starting with a letter or digit).
func checkDebName(pkg string) error {
	if len(pkg) < 2 || len(pkg) > 200 {
		return fmt.Errorf("debian: bad package name %q", pkg)
	}
	for i, r := range pkg {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || i > 0 && (r == '+' || r == '-' || r == '.')
		if !ok {
			return fmt.Errorf("debian: bad package name %q", pkg)
		}
	}
	return nil
}
