package text

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestBidiCharacterTest checks the levels and visual order of the cases of
// Unicode's BidiCharacterTest.txt kept in testdata (a sample of the 15.0.0
// file; set TESSERA_BIDI_TEST to a full copy to run all of it).
func TestBidiCharacterTest(t *testing.T) {
	path := os.Getenv("TESSERA_BIDI_TEST")
	if path == "" {
		path = "testdata/BidiCharacterTest-sample.txt"
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening the bidi test data: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	cases, failed := 0, 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || text[0] == '#' {
			continue
		}
		fs := strings.Split(text, ";")
		if len(fs) < 5 {
			t.Fatalf("line %d: %d fields", line, len(fs))
		}
		var rs []rune
		for _, h := range strings.Fields(fs[0]) {
			v, err := strconv.ParseUint(h, 16, 32)
			if err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
			rs = append(rs, rune(v))
		}
		var b *Bidi
		switch fs[1] {
		case "0":
			b = newBidiLevel(rs, 0)
		case "1":
			b = newBidiLevel(rs, 1)
		default:
			b = newBidiLevel(rs, -1)
		}
		cases++
		lv := b.Levels(0, len(rs))
		want := strings.Fields(fs[3])
		var got []string
		for i, l := range lv {
			if want[i] == "x" {
				got = append(got, "x")
			} else {
				got = append(got, strconv.Itoa(int(l)))
			}
		}
		// The expected order leaves out the characters removed by X9.
		_, order := b.reorder(0, len(rs))
		var gotOrder []string
		for _, i := range order {
			if want[i] != "x" {
				gotOrder = append(gotOrder, strconv.Itoa(i))
			}
		}
		if g, w := strings.Join(got, " "), strings.Join(want, " "); g != w || strings.Join(gotOrder, " ") != strings.Join(strings.Fields(fs[4]), " ") {
			failed++
			if failed <= 10 {
				t.Errorf("line %d %q dir %s: levels %s, want %s; order %v, want %s", line, string(rs), fs[1], g, w, gotOrder, fs[4])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if cases == 0 {
		t.Fatal("no test cases read")
	}
	if failed > 0 {
		t.Errorf("%d of %d cases failed", failed, cases)
	}
}
