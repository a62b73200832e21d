package testkit

import "testing"

// Sizes are the sizes a benchmark runs at: all of them, or with -short only
// the first, the smallest. CI runs every benchmark once that way (-short
// -bench . -benchtime 1x), so a benchmark whose own checks stopped holding
// fails there rather than on the next person who measures.
func Sizes[T any](sizes ...T) []T {
	if testing.Short() {
		return sizes[:1]
	}
	return sizes
}

// Size is a one-size benchmark's size: full, or with -short small.
func Size(full, small int) int {
	if testing.Short() {
		return small
	}
	return full
}
