package opendata

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzExtractTarGz feeds arbitrary bytes to the extractor: it must never
// panic and never write outside its destination.
func FuzzExtractTarGz(f *testing.F) {
	f.Add(tarGz(&testing.T{}, []entry{{name: "package/a.txt", typ: tar.TypeReg, body: "a"}}))
	f.Add(tarGz(&testing.T{}, []entry{{name: "package/../evil", typ: tar.TypeReg, body: "x"}}))
	f.Add(tarGz(&testing.T{}, []entry{{name: "package/d/", typ: tar.TypeDir}, {name: "package/l", typ: tar.TypeSymlink, linkname: "../../x"}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = ExtractTarGz(context.Background(), bytes.NewReader(data), dir, 1)
		ents, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 {
			t.Fatalf("extraction wrote outside its destination: %d entries in parent", len(ents))
		}
	})
}
