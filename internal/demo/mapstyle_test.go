package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"

	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/opendata"
	"github.com/tesseramaps/tessera/internal/sprite"
)

// glStyle is the part of a GL style the tests look at.
type glStyle struct {
	Version int       `json:"version"`
	Name    string    `json:"name"`
	Center  []float64 `json:"center"`
	Zoom    float64   `json:"zoom"`
	Sprite  string    `json:"sprite"`
	Glyphs  string    `json:"glyphs"`
	Sources map[string]struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	} `json:"sources"`
	Layers []struct {
		ID          string                     `json:"id"`
		Type        string                     `json:"type"`
		Source      string                     `json:"source"`
		SourceLayer string                     `json:"source-layer"`
		Filter      any                        `json:"filter"`
		Layout      map[string]json.RawMessage `json:"layout"`
		Paint       map[string]json.RawMessage `json:"paint"`
	} `json:"layers"`
}

func parseWorldStyle(t *testing.T, data []byte) glStyle {
	t.Helper()
	var s glStyle
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("style: %v", err)
	}
	return s
}

// repoRoot is the folder holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	return fixtures.RepoRoot()
}

// requireTool skips (or fails under TESSERA_REQUIRE_TOOLS=1) when a program
// is missing.
func requireTool(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s unavailable and TESSERA_REQUIRE_TOOLS=1: %v", what, err)
	}
	t.Skipf("%s unavailable (scripts/test-tools-npm.sh installs it): %v", what, err)
}

// TestWorldStyleValidates runs MapLibre's own validator
// (@maplibre/maplibre-gl-style-spec's gl-style-validate) over the style.
func TestWorldStyleValidates(t *testing.T) {
	bin := filepath.Join(repoRoot(t), ".cache", "npm-test", "node_modules", ".bin", "gl-style-validate")
	_, err := os.Stat(bin)
	if err == nil {
		_, err = exec.LookPath("node")
	}
	requireTool(t, "gl-style-validate", err)
	dir := t.TempDir()
	good := filepath.Join(dir, "style.json")
	if err := os.WriteFile(good, WorldStyle(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, good).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("gl-style-validate style.json: %v\n%s", err, out)
	}
	// The validator does reject a broken style: an unknown layer type.
	bad := filepath.Join(dir, "bad.json")
	broken := bytes.Replace(WorldStyle(), []byte(`"type": "fill"`), []byte(`"type": "filll"`), 1)
	if err := os.WriteFile(bad, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, bad).CombinedOutput(); err == nil && !bytes.Contains(out, []byte("filll")) {
		t.Errorf("gl-style-validate accepts a broken style: %s", out)
	}
}

func TestWorldStyleDocument(t *testing.T) {
	s := parseWorldStyle(t, WorldStyle())
	if s.Version != 8 || s.Name == "" {
		t.Errorf("version %d, name %q", s.Version, s.Name)
	}
	if !slices.Equal(s.Center, []float64{10, 25}) || s.Zoom != 1.5 {
		t.Errorf("center %v zoom %v, want [10 25] 1.5", s.Center, s.Zoom)
	}
	if s.Glyphs != "/fonts/{fontstack}/{range}.pbf" {
		t.Errorf("glyphs = %q", s.Glyphs)
	}
	if s.Sprite != "/maps/"+WorldMap+"/sprite" {
		t.Errorf("sprite = %q", s.Sprite)
	}
	if len(s.Sources) != 1 || s.Sources["world"].URL != "/tiles/world/tiles.json" || s.Sources["world"].Type != "vector" {
		t.Errorf("sources = %+v", s.Sources)
	}
	ids := map[string]bool{}
	for _, l := range s.Layers {
		if ids[l.ID] {
			t.Errorf("layer id %q twice", l.ID)
		}
		ids[l.ID] = true
		if l.Type != "background" && l.Source != "world" {
			t.Errorf("layer %s: source %q", l.ID, l.Source)
		}
	}
}

// exprRefs collects the feature attributes an expression reads (["get", k],
// ["has", k], ["!has", k], ...) into refs.
func exprRefs(v any, refs map[string]bool) {
	arr, ok := v.([]any)
	if !ok {
		return
	}
	if len(arr) >= 2 {
		if op, ok := arr[0].(string); ok {
			switch op {
			case "get", "has", "!has":
				if k, ok := arr[1].(string); ok && len(arr) == 2 {
					refs[k] = true
				}
			}
		}
	}
	for _, e := range arr {
		exprRefs(e, refs)
	}
}

// outputs returns the literal string results of an expression: itself when
// it is a string, the outputs of match/case/coalesce/step otherwise.
func outputs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		if len(v) == 0 {
			return nil
		}
		op, _ := v[0].(string)
		var out []string
		switch op {
		case "match":
			for i := 3; i < len(v); i += 2 {
				out = append(out, outputs(v[i])...)
			}
			out = append(out, outputs(v[len(v)-1])...)
		case "case":
			for i := 2; i < len(v); i += 2 {
				out = append(out, outputs(v[i])...)
			}
			out = append(out, outputs(v[len(v)-1])...)
		case "coalesce":
			for _, e := range v[1:] {
				out = append(out, outputs(e)...)
			}
		}
		return out
	}
	return nil
}

// TestWorldStyleMatchesTileset checks the style against the layers the demo
// builds: every source-layer exists and every attribute the style reads is
// one the layer's features carry; every icon the style names is one of the
// demo icons (and every icon is used); every font is one the demo copies.
func TestWorldStyleMatchesTileset(t *testing.T) {
	layers, err := worldLayers(testInputs(t))
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[string]map[string]bool{}
	for _, l := range layers {
		attrs[l.Name] = map[string]bool{}
		for _, f := range l.Features {
			for k := range f.Properties {
				attrs[l.Name][k] = true
			}
		}
	}
	icons, err := worldIcons()
	if err != nil {
		t.Fatal(err)
	}
	faces := map[string]bool{}
	for _, f := range fontFiles {
		if f.face != "" {
			faces[f.face] = true
		}
	}
	usedIcons := map[string]bool{}
	usedLayers := map[string]bool{}
	s := parseWorldStyle(t, WorldStyle())
	for _, l := range s.Layers {
		if l.Type == "background" {
			continue
		}
		have, ok := attrs[l.SourceLayer]
		if !ok {
			t.Errorf("layer %s: source-layer %q is not a layer of the tileset", l.ID, l.SourceLayer)
			continue
		}
		usedLayers[l.SourceLayer] = true
		refs := map[string]bool{}
		exprRefs(l.Filter, refs)
		props := map[string]any{}
		for k, raw := range l.Layout {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			props[k] = v
		}
		for k, raw := range l.Paint {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			props[k] = v
		}
		for _, v := range props {
			exprRefs(v, refs)
		}
		for k := range refs {
			if !have[k] {
				t.Errorf("layer %s reads %q, which no feature of %s has (has %v)", l.ID, k, l.SourceLayer, keys(have))
			}
		}
		if img, ok := props["icon-image"]; ok {
			names := outputs(img)
			if len(names) == 0 {
				t.Errorf("layer %s: icon-image %v names no icon", l.ID, img)
			}
			for _, n := range names {
				usedIcons[n] = true
				if icons[n+".svg"] == nil {
					t.Errorf("layer %s: icon %q is not a demo icon", l.ID, n)
				}
			}
		}
		if font, ok := props["text-font"]; ok {
			stack, ok := font.([]any)
			if !ok || len(stack) == 0 {
				t.Errorf("layer %s: text-font %v", l.ID, font)
			}
			for _, f := range stack {
				if name, _ := f.(string); !faces[name] {
					t.Errorf("layer %s: font %v is not one the demo copies", l.ID, f)
				}
			}
		}
		if _, ok := props["text-field"]; ok && props["text-font"] == nil {
			t.Errorf("layer %s: text without text-font (the server has no default font)", l.ID)
		}
	}
	for name := range icons {
		if !usedIcons[strings.TrimSuffix(name, ".svg")] {
			t.Errorf("icon %s is not used by the style", name)
		}
	}
	for _, l := range layers {
		if !usedLayers[l.Name] {
			t.Errorf("tileset layer %s is not drawn", l.Name)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestWorldIconsRender packs the icons with Tessera's sprite builder, as the
// server does: every icon renders, at its natural size, and is not blank.
func TestWorldIconsRender(t *testing.T) {
	icons, err := worldIcons()
	if err != nil {
		t.Fatal(err)
	}
	if len(icons) < 3 {
		t.Fatalf("%d icons", len(icons))
	}
	var in []sprite.Icon
	for name, data := range icons {
		in = append(in, sprite.Icon{Name: strings.TrimSuffix(name, ".svg"), Data: data, Source: name})
	}
	sheet, err := sprite.BuildSheet(context.Background(), in, sprite.Options{PixelRatio: 2})
	if err != nil {
		t.Fatalf("sprite: %v", err)
	}
	if len(sheet.Skipped) > 0 {
		t.Errorf("icons skipped: %v", sheet.Skipped)
	}
	img, err := png.Decode(bytes.NewReader(sheet.PNG))
	if err != nil {
		t.Fatal(err)
	}
	for name := range icons {
		e, ok := sheet.Entries[strings.TrimSuffix(name, ".svg")]
		if !ok || e.Width < 8 || e.Height < 8 || e.Width > 48 || e.Height > 48 || e.PixelRatio != 2 {
			t.Errorf("icon %s in the @2x sheet: %+v (present %v)", name, e, ok)
			continue
		}
		// Mostly opaque near the middle, transparent in a corner.
		_, _, _, a := img.At(e.X+e.Width/2, e.Y+e.Height/2).RGBA()
		_, _, _, corner := img.At(e.X, e.Y).RGBA()
		if a < 0xc000 || corner > 0x2000 {
			t.Errorf("icon %s: centre alpha %#x, corner alpha %#x", name, a, corner)
		}
	}
}

func TestMapColors(t *testing.T) {
	tests := []struct {
		name  string
		edges [][2]int
		n     int
	}{
		{"isolated", nil, 4},
		{"triangle", [][2]int{{0, 1}, {1, 2}, {2, 0}}, 3},
		{"star", [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}}, 8},
		{"wheel", [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 1}}, 6},
		{"k6", [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}, {3, 4}, {3, 5}, {4, 5}}, 6},
	}
	for _, tc := range tests {
		nb := make([][]int, tc.n)
		for _, e := range tc.edges {
			nb[e[0]] = append(nb[e[0]], e[1])
			nb[e[1]] = append(nb[e[1]], e[0])
		}
		colors := mapColors(nb)
		if len(colors) != tc.n {
			t.Fatalf("%s: %d colours for %d nodes", tc.name, len(colors), tc.n)
		}
		for _, e := range tc.edges {
			if colors[e[0]] == colors[e[1]] {
				t.Errorf("%s: neighbours %d and %d share colour %d", tc.name, e[0], e[1], colors[e[0]])
			}
		}
		distinct := map[int]bool{}
		for _, c := range colors {
			if c < 1 || c > MapColors {
				t.Errorf("%s: colour %d outside 1..%d", tc.name, c, MapColors)
			}
			distinct[c] = true
		}
		// Isolated nodes and the leaves of a star spread over the palette.
		if want := min(tc.n, MapColors); tc.name != "triangle" && len(distinct) < want {
			t.Errorf("%s: %d distinct colours %v, want %d", tc.name, len(distinct), colors, want)
		}
		if again := mapColors(nb); !slices.Equal(again, colors) {
			t.Errorf("%s: not deterministic: %v then %v", tc.name, colors, again)
		}
	}
	// Seven mutually adjacent nodes need a seventh colour.
	nb := make([][]int, 7)
	for i := range 7 {
		for j := range 7 {
			if i != j {
				nb[i] = append(nb[i], j)
			}
		}
	}
	colors := mapColors(nb)
	seen := map[int]bool{}
	for _, c := range colors {
		if seen[c] {
			t.Errorf("k7: colour %d twice in %v", c, colors)
		}
		seen[c] = true
	}
}

// testDebianDirs returns Options.DebianDirs for the font packages: the real
// packages fetched with apt into the repository's .cache/opendata (shared by
// test runs, like the demo's cache), or, without apt, stub packages holding
// placeholder files at the packages' paths (real reports whether they are
// the real packages).
func testDebianDirs(t *testing.T) (dirs map[string]string, real bool) {
	t.Helper()
	ctx := context.Background()
	cache := filepath.Join(repoRoot(t), ".cache", "opendata")
	dirs = map[string]string{}
	var err error
	for _, pkg := range []string{NotoFontsPackage, OpenSansPackage} {
		var dir string
		if dir, err = opendata.Debian(ctx, cache, pkg); err != nil {
			break
		}
		dirs[pkg] = dir
	}
	if err == nil {
		return dirs, true
	}
	if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
		t.Fatalf("Debian font packages unavailable and TESSERA_REQUIRE_TOOLS=1: %v", err)
	}
	t.Logf("Debian font packages unavailable, using stub packages: %v", err)
	root := t.TempDir()
	for _, f := range fontFiles {
		dirs[f.pkg] = filepath.Join(root, f.pkg)
		writeFile(t, filepath.Join(dirs[f.pkg], filepath.FromSlash(f.path)), "stub "+f.out)
	}
	return dirs, false
}

// checkWorldMapFiles checks what the map and fonts steps wrote into a data
// folder: the style as embedded, the icons, and the fonts copied from the
// packages (with the real packages: that the glyph library serves every font
// the style names).
func checkWorldMapFiles(t *testing.T, data string, debs map[string]string, real bool) {
	t.Helper()
	mapDir := filepath.Join(data, "maps", WorldMap)
	style, err := os.ReadFile(filepath.Join(mapDir, MapStyleFile))
	if err != nil {
		t.Fatalf("style: %v", err)
	}
	if !bytes.Equal(style, WorldStyle()) {
		t.Error("style.json differs from the embedded style")
	}
	icons, err := worldIcons()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(mapDir, MapIconsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(icons) {
		t.Errorf("%d files in icons/, want %d", len(ents), len(icons))
	}
	for name, want := range icons {
		got, err := os.ReadFile(filepath.Join(mapDir, MapIconsDir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("icon %s: %v (equal %v)", name, err, bytes.Equal(got, want))
		}
	}
	fontsDir := filepath.Join(data, FontsDir)
	ents, err = os.ReadDir(fontsDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != len(fontFiles) {
		t.Errorf("fonts folder holds %v, want %d files", names, len(fontFiles))
	}
	for _, f := range fontFiles {
		want, err := os.ReadFile(filepath.Join(debs[f.pkg], filepath.FromSlash(f.path)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(fontsDir, f.out))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %v (copied intact: %v)", f.out, err, bytes.Equal(got, want))
		}
	}
	lic, _ := os.ReadFile(filepath.Join(fontsDir, "LICENSE-noto.txt"))
	lic2, _ := os.ReadFile(filepath.Join(fontsDir, "LICENSE-open-sans.txt"))
	if !real {
		return
	}
	if !bytes.Contains(lic, []byte("Open Font License")) || !bytes.Contains(lic2, []byte("Apache")) {
		t.Errorf("licence files: noto %d bytes, open sans %d bytes", len(lic), len(lic2))
	}
	lib, err := glyphs.Open(context.Background(), fontsDir, glyphs.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	s := parseWorldStyle(t, style)
	for _, l := range s.Layers {
		raw, ok := l.Layout["text-font"]
		if !ok {
			continue
		}
		var stack []string
		if err := json.Unmarshal(raw, &stack); err != nil {
			t.Fatal(err)
		}
		for _, name := range stack {
			if !lib.Has(name) {
				t.Errorf("layer %s: the glyph library serves no %q (it has %v)", l.ID, name, lib.Names())
			}
		}
	}
}

// TestWriteWorldMapReplacesIcons checks that a rebuild replaces the icons
// folder: a stale icon left from an older demo disappears.
func TestWriteWorldMapReplacesIcons(t *testing.T) {
	data := t.TempDir()
	stale := filepath.Join(data, "maps", WorldMap, MapIconsDir, "old.svg")
	writeFile(t, stale, "<svg/>")
	b := &builder{opts: Options{DataDir: data}, log: discardLogger(), fetched: map[string]string{}}
	if err := b.writeWorldMap(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale icon still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "maps", WorldMap, MapIconsDir, "capital.svg")); err != nil {
		t.Error(err)
	}
	ents, _ := os.ReadDir(filepath.Join(data, "maps", WorldMap))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestCopyFontsErrors: a package without one of the expected files fails
// the step, naming the package.
func TestCopyFontsErrors(t *testing.T) {
	root := t.TempDir()
	debs := map[string]string{NotoFontsPackage: filepath.Join(root, "noto"), OpenSansPackage: filepath.Join(root, "os")}
	for _, f := range fontFiles {
		if f.pkg == OpenSansPackage && strings.HasSuffix(f.out, "Bold.ttf") {
			continue // missing
		}
		writeFile(t, filepath.Join(debs[f.pkg], filepath.FromSlash(f.path)), "x")
	}
	// An empty file is refused too.
	writeFile(t, filepath.Join(root, "empty", filepath.FromSlash(fontFiles[0].path)), "")
	tests := []struct {
		name string
		debs map[string]string
		want string
	}{
		{"missing file", debs, OpenSansPackage},
		{"empty file", map[string]string{NotoFontsPackage: filepath.Join(root, "empty"), OpenSansPackage: debs[OpenSansPackage]}, "size 0"},
	}
	for _, tc := range tests {
		data := t.TempDir()
		b := &builder{opts: Options{DataDir: data, DebianDirs: tc.debs}, log: discardLogger(), fetched: map[string]string{}}
		err := b.copyFonts(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestCopyFontsWithoutApt: on a machine without apt the fonts step leaves
// the fonts out (with a warning) instead of failing the demo.
func TestCopyFontsWithoutApt(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	data := t.TempDir()
	b := &builder{opts: Options{DataDir: data, CacheDir: t.TempDir()}, log: discardLogger(), fetched: map[string]string{}}
	if err := b.copyFonts(context.Background()); err != nil {
		t.Fatalf("copyFonts without apt: %v", err)
	}
	ents, err := os.ReadDir(filepath.Join(data, FontsDir))
	if err != nil || len(ents) != 0 {
		t.Errorf("fonts folder: %v, %d entries", err, len(ents))
	}
}

// TestWriteSpriteSet: the demo's named icon set holds the world map's
// icons, and a rebuild replaces it (a stale icon disappears).
func TestWriteSpriteSet(t *testing.T) {
	data := t.TempDir()
	stale := filepath.Join(data, "sprites", SpriteSet, "old.svg")
	writeFile(t, stale, "<svg/>")
	b := &builder{opts: Options{DataDir: data}, log: discardLogger(), fetched: map[string]string{}}
	if err := b.writeSpriteSet(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale icon still there: %v", err)
	}
	icons, err := worldIcons()
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(data, "sprites", SpriteSet))
	if len(ents) != len(icons) {
		t.Errorf("%d icons written, want %d", len(ents), len(icons))
	}
	for name, want := range icons {
		if got, err := os.ReadFile(filepath.Join(data, "sprites", SpriteSet, name)); err != nil || string(got) != string(want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
