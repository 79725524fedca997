package sources

import "testing"

func TestArena(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
	}{
		{"small slices share a chunk", []int{1, 2, 3, 0, 5}},
		{"a slice larger than a chunk", []int{3, arenaChunk + 10, 2}},
		{"a chunk filled exactly, then more", []int{arenaChunk - 1, 1, 1}},
		{"a slice that does not fit the rest of a chunk", []int{arenaChunk - 2, 3, 1}},
	}
	for _, tc := range tests {
		var a arena[int]
		var got [][]int
		for i, n := range tc.sizes {
			s := a.take(n)
			if len(s) != n || cap(s) != n {
				t.Fatalf("%s: take(%d) has len %d cap %d", tc.name, n, len(s), cap(s))
			}
			for k := range s {
				if s[k] != 0 {
					t.Fatalf("%s: take(%d) not zeroed", tc.name, n)
				}
				s[k] = i + 1
			}
			got = append(got, s)
		}
		// No slice overlaps another, and appending to one leaves the
		// next alone.
		for i, s := range got {
			if len(s) > 0 {
				_ = append(s, -1)
			}
			for _, v := range s {
				if v != i+1 {
					t.Fatalf("%s: slice %d overwritten", tc.name, i)
				}
			}
		}
		for i, s := range got {
			for _, v := range s {
				if v != i+1 {
					t.Fatalf("%s: slice %d overwritten after appends", tc.name, i)
				}
			}
		}
	}
}
