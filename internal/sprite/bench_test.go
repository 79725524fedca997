package sprite

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkBuildFixtureSprite builds the reference fixture sprite (src1 + src2, 4 SVG icons)
// at each pixel ratio, plain and SDF.
func BenchmarkBuildFixtureSprite(b *testing.B) {
	icons := fixtureIcons(b, "all")
	for _, ratio := range []int{1, 2} {
		for _, sdf := range []bool{false, true} {
			b.Run(fmt.Sprintf("ratio=%d/sdf=%v", ratio, sdf), func(b *testing.B) {
				opts := Options{PixelRatio: ratio, SDF: sdf}
				for b.Loop() {
					if _, _, err := Build(context.Background(), icons, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
