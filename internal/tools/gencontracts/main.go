// Command gencontracts writes the lane's tool contracts (lane.ToolContractsJSON)
// to the file its argument names: go generate ./internal/tools runs it. It is
// a program of its own, not a test of package tools, so it runs even when the
// embedded file is too stale for the tools to initialise.
package main

import (
	"fmt"
	"os"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencontracts FILE")
		os.Exit(2)
	}
	b, err := areas.Lane(lane.Options{}).ToolContractsJSON()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencontracts:", err)
		os.Exit(1)
	}
}
