//go:build race

package kit

// RaceOn: this binary was built with -race (see SweepEngines).
const RaceOn = true
