//go:build !race

package testkit

// RaceEnabled: this binary was built with -race.
const RaceEnabled = false
