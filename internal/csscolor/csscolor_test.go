package csscolor

import "testing"

func TestNamed(t *testing.T) {
	// CSS Color Level 4 has 148 named colors (grey and gray spellings
	// counted separately), "transparent" aside.
	if len(Named) != 148 {
		t.Errorf("%d named colors, want 148", len(Named))
	}
	for name, want := range map[string]uint32{"rebeccapurple": 0x663399, "red": 0xff0000, "darkslategrey": 0x2f4f4f, "aliceblue": 0xf0f8ff} {
		if got, ok := Named[name]; !ok || got != want {
			t.Errorf("Named[%q] = %06x, %v; want %06x", name, got, ok, want)
		}
	}
}
