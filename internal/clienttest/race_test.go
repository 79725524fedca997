//go:build race

package clienttest

// raceDetector: the tests run under the race detector, many times slower.
const raceDetector = true
