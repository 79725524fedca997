//go:build race

package server

// raceDetector: the tests run under the race detector, many times slower.
const raceDetector = true
