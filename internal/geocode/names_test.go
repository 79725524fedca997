package geocode

import "testing"

func TestNameForms(t *testing.T) {
	for _, tc := range []struct {
		long, short      string
		extends, shortOf bool
	}{
		{"Kempten (Allgäu)", "Kempten", true, true},
		{"Halle (Saale)", "Halle", true, true},
		{"Paris 17e Arrondissement", "Paris 17", false, true},
		{"Paris 17e Arrondissement", "Paris 17e", true, true},
		{"Chamonix-Mont-Blanc", "Chamonix", true, true},
		{"München", "Munich", false, false},
		{"Frankfurt (Oder)", "Frankfurt (Oder)", false, true},
		{"Saint-Louis", "St. Louis", false, false},
		{"Bautzen", "", false, false},
	} {
		if got := extendsName(tc.long, tc.short); got != tc.extends {
			t.Errorf("extendsName(%q, %q) = %v", tc.long, tc.short, got)
		}
		if got := shortFormOf(tc.long, tc.short); got != tc.shortOf {
			t.Errorf("shortFormOf(%q, %q) = %v", tc.long, tc.short, got)
		}
	}
	for w, want := range map[string]string{"17eme": "17e", "1ere": "", "3ieme": "3e", "20em": "20e", "eme": "", "17e": "", "1234eme": ""} {
		got, ok := ordinalShort(w)
		if got != want || ok != (want != "") {
			t.Errorf("ordinalShort(%q) = %q, %v", w, got, ok)
		}
	}
	if !textEqual("Toruń", " toruń") || textEqual("Toruń", "Torun") || !textEqual("Kraków", "Krako\u0301w") {
		t.Error("textEqual: case aside, diacritics count, composed or not")
	}
}
