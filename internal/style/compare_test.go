package style

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// repoRoot is the folder holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	return fixtures.RepoRoot()
}

// sharedDir returns ../shared beside the repository, skipping the test when
// it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	return fixtures.Dir(t)
}

// styleFixtures lists the style documents found in the shared material.
func styleFixtures(t testing.TB, shared string) []string {
	t.Helper()
	var files []string
	globs := []string{
		"fixtures/martin/tests/fixtures/styles/*.json",
		"fixtures/martin/tests/fixtures/styles/*/*.json",
		"fixtures/tileserver-rs/data/styles/*/*.json",
		"fixtures/tileserver-rs/data/styles/*.json",
		"bench/street-style.json",
	}
	for _, g := range globs {
		m, _ := filepath.Glob(filepath.Join(shared, g))
		files = append(files, m...)
	}
	_ = filepath.WalkDir(filepath.Join(shared, "fixtures", "tileserver-gl", "test", "fixtures"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && looksLikeStyle(p) {
			files = append(files, p)
		}
		return nil
	})
	_ = filepath.WalkDir(filepath.Join(shared, "render-tests", "tests"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "style.json" {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

func looksLikeStyle(p string) bool {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, hasLayers := m["layers"]
	_, hasVersion := m["version"]
	return hasLayers && hasVersion
}

type refResult struct {
	Errors []struct {
		Message  string `json:"message"`
		Severity string `json:"severity"`
	} `json:"errors"`
	ParseError string `json:"parseError"`
	Crash      string `json:"crash"`
}

// runReference runs testdata/glvalidate.mjs (the reference validator of
// @maplibre/maplibre-gl-style-spec) on files, or skips when it is absent.
func runReference(t *testing.T, files []string) map[string]refResult {
	t.Helper()
	require := os.Getenv("TESSERA_REQUIRE_TOOLS") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if require {
			t.Fatalf(format, args...)
		}
		t.Skipf(format+" (install: npm install --prefix .cache/npm-test @maplibre/maplibre-gl-style-spec)", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found: %v", err)
	}
	pkg := filepath.Join(repoRoot(t), ".cache", "npm-test", "node_modules", "@maplibre", "maplibre-gl-style-spec")
	if _, err := os.Stat(filepath.Join(pkg, "dist", "index.mjs")); err != nil {
		missing("gl-style-validate package not found: %v", err)
	}
	list, err := json.Marshal(files)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/glvalidate.mjs", pkg)
	cmd.Stdin = bytes.NewReader(list)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference validator: %v\n%s", err, stderr.String())
	}
	res := map[string]refResult{}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("reference output: %v", err)
	}
	return res
}

// errPath returns the path part of a "path: message" string.
func errPath(msg string) string {
	p, _, ok := strings.Cut(msg, ": ")
	if !ok {
		return ""
	}
	return p
}

// normalizeMessage drops the one part of a message this package writes
// differently on purpose: the reference names the line of the first use of
// a duplicate layer id ("line N"), Validate names its index ("layers[i]").
func normalizeMessage(m string) string {
	if i := strings.Index(m, ", previously used at "); i >= 0 {
		return m[:i]
	}
	return m
}

func pathSet(paths []string) string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " | ")
}

// minCompared is the number of inputs compared with the reference when this
// guard was set (3,413, all agreeing in verdict, error paths and messages).
// Fewer means inputs are lost or the reference crashes on more of them, and
// fails the test.
const minCompared = 3413

// knownDifferencesFile lists the inputs on which Validate may disagree with
// the reference, each with a reason; it is reviewed like code and is empty
// while every input agrees. A key is the aspect (verdict, paths or messages)
// and the input's name (see inputName).
const knownDifferencesFile = "testdata/known-differences.txt"

// inputName names a compared input stably: a shared fixture by its path below
// the shared folder, a generated variant by its file name, a hand-written
// case by its path in the package.
func inputName(shared, f string, group string) string {
	switch group {
	case "fixtures":
		if rel, err := filepath.Rel(shared, f); err == nil {
			return filepath.ToSlash(rel)
		}
	case "hand-written":
		return "testdata/broken/" + filepath.Base(f)
	}
	return filepath.Base(f)
}

// TestAgainstGLStyleValidate compares Validate with the reference validator
// on the shared style fixtures and on broken variants of them. Any input on
// which the verdict, the set of error paths or the set of messages differs
// fails the test unless knownDifferencesFile lists it; so does a listed entry
// that agrees again, and a drop in the number of inputs compared.
func TestAgainstGLStyleValidate(t *testing.T) {
	shared := sharedDir(t)
	styleFiles := styleFixtures(t, shared)
	if len(styleFiles) < 10 {
		t.Fatalf("only %d style fixtures found under %s", len(styleFiles), shared)
	}
	known := fixtures.LoadKnown(t, knownDifferencesFile)
	tmp := t.TempDir()
	variants := writeBrokenVariants(t, styleFiles, tmp)
	variants = append(variants, writeRandomVariants(t, styleFiles, tmp, 2000)...)
	handWritten, _ := filepath.Glob("testdata/broken/*.json")
	for i, f := range handWritten {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		handWritten[i] = abs
	}
	all := append(append(append([]string{}, styleFiles...), variants...), handWritten...)
	ref := runReference(t, all)

	type tally struct{ n, verdict, paths, messages int }
	groups := map[string]*tally{"fixtures": {}, "variants": {}, "hand-written": {}}
	groupOf := func(i int) string {
		switch {
		case i < len(styleFiles):
			return "fixtures"
		case i < len(styleFiles)+len(variants):
			return "variants"
		}
		return "hand-written"
	}
	var differences []string // unlisted disagreements: each fails the test
	crashed := 0
	for i, f := range all {
		r, ok := ref[f]
		if !ok || r.Crash != "" {
			crashed++ // the reference crashed on this input: no verdict to compare
			continue
		}
		var refPaths, refMsgs []string
		for _, e := range r.Errors {
			if e.Severity == "warning" {
				continue
			}
			refPaths = append(refPaths, errPath(e.Message))
			refMsgs = append(refMsgs, normalizeMessage(e.Message))
		}
		refValid := r.ParseError == "" && len(refPaths) == 0

		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ourPaths, ourMsgs []string
		s, err := Parse(data)
		if err != nil {
			ourPaths = []string{"<parse>"}
		} else {
			for _, e := range Validate(s, nil) {
				ourPaths = append(ourPaths, e.Path)
				ourMsgs = append(ourMsgs, normalizeMessage(e.Error()))
			}
		}
		ourValid := len(ourPaths) == 0
		group := groupOf(i)
		name := inputName(shared, f, group)
		g := groups[group]
		g.n++
		bothUnparsable := r.ParseError != "" && err != nil
		differ := func(aspect string) {
			if !known.Excuses(aspect + " " + name) {
				differences = append(differences, fmt.Sprintf("%s differ on %s:\n    ours: %v\n    ref:  %v", aspect, name, ourMsgs, refMsgs))
			}
		}
		if ourValid == refValid {
			g.verdict++
		} else {
			differ("verdict")
		}
		if bothUnparsable || pathSet(ourPaths) == pathSet(refPaths) {
			g.paths++
		} else {
			differ("paths")
		}
		if bothUnparsable || pathSet(ourMsgs) == pathSet(refMsgs) {
			g.messages++
		} else {
			differ("messages")
		}
	}
	total := tally{}
	for _, name := range []string{"fixtures", "variants", "hand-written"} {
		g := groups[name]
		total.n += g.n
		total.verdict += g.verdict
		total.paths += g.paths
		total.messages += g.messages
		t.Logf("%-12s %4d files: verdict agrees %4d (%.1f%%), error paths agree %4d (%.1f%%), messages agree %4d (%.1f%%)",
			name, g.n, g.verdict, pct(g.verdict, g.n), g.paths, pct(g.paths, g.n), g.messages, pct(g.messages, g.n))
	}
	t.Logf("%-12s %4d files: verdict agrees %4d (%.1f%%), error paths agree %4d (%.1f%%), messages agree %4d (%.1f%%)",
		"total", total.n, total.verdict, pct(total.verdict, total.n), total.paths, pct(total.paths, total.n), total.messages, pct(total.messages, total.n))
	t.Logf("reference crashed on %d inputs (not compared); known differences listed in %s: %d; inputs required: at least %d",
		crashed, knownDifferencesFile, known.Len(), minCompared)
	if total.n < minCompared {
		t.Errorf("%d inputs compared, want at least %d: fixtures are missing or the reference crashes on more inputs", total.n, minCompared)
	}
	const shown = 40
	for i, d := range differences {
		if i == shown {
			t.Errorf("... and %d more differences", len(differences)-shown)
			break
		}
		t.Errorf("not a listed known difference: %s", d)
	}
	known.ReportStale(t)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
