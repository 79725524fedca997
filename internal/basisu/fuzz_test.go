package basisu

import (
	"image"
	"testing"
)

// FuzzInspect feeds Inspect arbitrary bytes, seeded with real files and
// their truncations: it must return an error or a description whose ranges
// lie inside the file, never panic.
func FuzzInspect(f *testing.F) {
	for _, img := range []image.Image{testImage(16, 16, false), testImage(8, 4, true)} {
		data, err := EncodeBytes(img, Options{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:headerSize])
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte{})
	f.Add(Identifier[:])
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Inspect(data)
		if err != nil {
			return
		}
		if info.LevelOffset+info.LevelSize > len(data) || info.RGBSlice+info.AlphaSlice > len(data) {
			t.Fatalf("ranges outside the file: %+v (%d bytes)", info, len(data))
		}
	})
}
