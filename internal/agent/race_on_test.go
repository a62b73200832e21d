//go:build race

package agent

// raceOn: this binary was built with -race (see TestTraineeFloodStaysWithEachPerson).
const raceOn = true
