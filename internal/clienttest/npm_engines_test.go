package clienttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestNpmEnginesMatchNode reads every package the setup scripts installed
// from npm (.cache/npm-test for the tests, .cache/npm-web for the viewer)
// and checks that the Node.js of this machine satisfies each one's declared
// engines.node: npm warns EBADENGINE at install time otherwise, and such a
// package may use what this Node lacks.
func TestNpmEnginesMatchNode(t *testing.T) {
	node := fixtures.Tool(t, "node")
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	have := parseVersion(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"))
	checked := 0
	for _, dir := range []string{"npm-test", "npm-web"} {
		modules := filepath.Join(fixtures.RepoRoot(), ".cache", dir, "node_modules")
		if _, err := os.Stat(modules); err != nil {
			if fixtures.RequireTools() {
				t.Errorf("%s is absent: the setup scripts did not run", modules)
			}
			continue
		}
		pkgs, _ := filepath.Glob(filepath.Join(modules, "*", "package.json"))
		scoped, _ := filepath.Glob(filepath.Join(modules, "@*", "*", "package.json"))
		for _, p := range append(pkgs, scoped...) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var pkg struct {
				Name    string
				Version string
				Engines struct{ Node string } `json:"engines"`
			}
			if json.Unmarshal(b, &pkg) != nil || pkg.Engines.Node == "" {
				continue
			}
			checked++
			if !satisfies(have, pkg.Engines.Node) {
				t.Errorf("%s@%s (%s) wants node %q; this machine has %s", pkg.Name, pkg.Version, dir, pkg.Engines.Node, out)
			}
		}
	}
	if checked == 0 {
		t.Skip("no npm packages installed (.cache is absent): skipping")
	}
	t.Logf("%d packages declare engines.node; node %s satisfies each", checked, strings.TrimSpace(string(out)))
}

var versionRe = regexp.MustCompile(`\d+(\.\d+)?(\.\d+)?`)

func parseVersion(s string) [3]int {
	var v [3]int
	for i, part := range strings.SplitN(versionRe.FindString(s), ".", 3) {
		v[i], _ = strconv.Atoi(part)
	}
	return v
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// satisfies checks a version against an npm range of the forms packages use
// for engines: alternatives joined by ||, each a list of >=, >, <, <=, ^, ~
// or bare versions and x-ranges ("*", "20.x"). Unknown forms count as met.
func satisfies(v [3]int, rng string) bool {
	for _, alt := range strings.Split(rng, "||") {
		ok := true
		fields := strings.Fields(strings.NewReplacer(">= ", ">=", "<= ", "<=", "> ", ">", "< ", "<", "^ ", "^", "~ ", "~").Replace(alt))
		for _, f := range fields {
			if f == "*" || f == "x" || !versionRe.MatchString(f) {
				continue
			}
			w := parseVersion(f)
			switch {
			case strings.HasPrefix(f, ">="):
				ok = ok && !less(v, w)
			case strings.HasPrefix(f, ">"):
				ok = ok && less(w, v)
			case strings.HasPrefix(f, "<="):
				ok = ok && !less(w, v)
			case strings.HasPrefix(f, "<"):
				ok = ok && less(v, w)
			case strings.HasPrefix(f, "^"), strings.HasPrefix(f, "~"):
				ok = ok && !less(v, w) && v[0] == w[0]
			default: // a bare version or x-range: the major must match
				ok = ok && v[0] == w[0]
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func TestSatisfies(t *testing.T) {
	v20 := [3]int{20, 20, 2}
	for _, c := range []struct {
		rng  string
		want bool
	}{
		{">= 22", false}, {">=22", false}, {">= 0.6", true}, {">=18", true}, {">=14.0.0", true},
		{"^18.0.0 || ^20.0.0 || >=22", true}, {"^18 || >=22", false}, {">=16 <21", true}, {"<20", false},
		{"20.x", true}, {"*", true}, {">=20.20.3", false},
	} {
		if got := satisfies(v20, c.rng); got != c.want {
			t.Errorf("satisfies(20.20.2, %q) = %v, want %v", c.rng, got, c.want)
		}
	}
}
