//go:build !race

package lane_test

// raceOn: this binary was built with -race (see sweepEngines).
const raceOn = false
