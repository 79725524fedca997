//go:build race

package glyphs

// raceEnabled reports a -race build, whose timings mean nothing.
const raceEnabled = true
