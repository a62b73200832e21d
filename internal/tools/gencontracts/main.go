// Command gencontracts writes the contracts of the lane routes the tool sets
// call (lanecontracts.JSON) to the file its argument names: go generate
// ./internal/tools runs it. It is a program of its own, not a test of
// package tools, so it runs even when the embedded file is too stale for the
// tools to initialise.
package main

import (
	"fmt"
	"os"

	"github.com/otherwise/perform/internal/tools/lanecontracts"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencontracts FILE")
		os.Exit(2)
	}
	b, err := lanecontracts.JSON()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencontracts:", err)
		os.Exit(1)
	}
}
