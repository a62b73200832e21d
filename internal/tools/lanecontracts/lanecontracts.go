// Package lanecontracts writes lane_contracts.json, the lane routes the
// tool sets derive from: every route that names a coach or trainee tool,
// and every route the lane opens to an agent platform's key (scope
// public:read), which the platform's tools call. Only the generator
// (go generate ./internal/tools) and the tests link it, and through it the
// lane; package tools embeds the file.
package lanecontracts

import (
	"encoding/json"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane"
)

// Selected reports whether c is a route a tool set calls.
func Selected(c lane.Contract) bool {
	return c.Tool != "" || len(c.TraineeTools) > 0 || c.Scope == auth.ScopePublicRead
}

// JSON is the selected contracts, indented, with one final newline.
func JSON() ([]byte, error) {
	var list []lane.Contract
	for _, c := range areas.Lane(lane.Options{}).Contracts() {
		if Selected(c) {
			list = append(list, c)
		}
	}
	b, err := json.MarshalIndent(list, "", "  ")
	return append(b, '\n'), err
}
