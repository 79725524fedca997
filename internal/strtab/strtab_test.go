package strtab

import (
	"slices"
	"testing"
)

func TestBuilder(t *testing.T) {
	b := NewBuilder()
	words := []string{"EPSG", "4326", "", "WGS 84", "EPSG", "Réunion", "4326", ""}
	got := make([]Ref, len(words))
	for i, w := range words {
		got[i] = b.Add(w)
	}
	text := b.Text()
	for i, w := range words {
		if s := got[i].In(text); s != w {
			t.Errorf("Add(%q) reads back %q", w, s)
		}
	}
	// Equal strings are stored once: equal strs.
	if got[0] != got[4] || got[1] != got[6] || got[2] != got[7] {
		t.Errorf("repeated strings stored twice: %v", got)
	}
	if want := len("EPSG4326WGS 84Réunion"); len(text) != want {
		t.Errorf("text %q: %d bytes, want %d", text, len(text), want)
	}
}

func TestLists(t *testing.T) {
	b := NewBuilder()
	b.Add("unrelated")
	m := map[string][]int32{"lambert": {3, 9}, "lamb93": {7}, "zone": {1, 2, 5}, "a": {0}, "": {4}}
	ls := NewLists(b, m)
	text := b.Text()
	for _, c := range []struct {
		key  string
		want []int32
	}{
		{"lambert", []int32{3, 9}},
		{"lamb93", []int32{7}},
		{"zone", []int32{1, 2, 5}},
		{"a", []int32{0}},
		{"", []int32{4}},
		{"lam", nil},
		{"zones", nil},
		{"b", nil},
		{"unrelated", nil},
	} {
		if got := ls.Get(text, c.key); !slices.Equal(got, c.want) {
			t.Errorf("Get(%q) = %v, want %v", c.key, got, c.want)
		}
	}
	// Keys are in order; search finds the first not less than its key.
	var keys []string
	for _, k := range ls.keys {
		keys = append(keys, k.In(text))
	}
	if want := []string{"", "a", "lamb93", "lambert", "zone"}; !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	for _, c := range []struct {
		k    string
		want int
	}{{"", 0}, {"0", 1}, {"a", 1}, {"lam", 2}, {"lambert", 3}, {"lamberts", 4}, {"zz", 5}} {
		if got := ls.Search(text, c.k); got != c.want {
			t.Errorf("Search(%q) = %d, want %d", c.k, got, c.want)
		}
	}
	// Appending to a list copies it rather than overwriting the next one.
	l := ls.Get(text, "lamb93")
	_ = append(l, 99)
	if got := ls.Get(text, "lambert"); !slices.Equal(got, []int32{3, 9}) {
		t.Errorf("append to a list changed the next: %v", got)
	}
	if empty := NewLists(b, nil); empty.Get(b.Text(), "a") != nil || empty.Search(b.Text(), "a") != 0 {
		t.Error("an empty lists finds something")
	}
}
