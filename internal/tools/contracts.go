package tools

import (
	_ "embed"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/otherwise/perform/internal/ids"
)

// Contract is a lane route's contract as the lane states it
// (lane.Contracts): lane_contracts.json is generated from the lane's
// request types and checked against them by the tests (go generate
// ./internal/tools writes it again). The tools link no part of the lane.
type Contract struct {
	Tool         string             `json:"tool,omitempty"`
	TraineeTools []string           `json:"traineeTools,omitempty"`
	TraineeScope string             `json:"traineeScope,omitempty"`
	Method       string             `json:"method"`
	Path         string             `json:"path"`
	Scope        string             `json:"scope,omitempty"`
	IDKind       ids.Kind           `json:"idKind,omitempty"`
	View         string             `json:"view,omitempty"`
	Order        []string           `json:"order"`
	Input        *jsonschema.Schema `json:"input"`
}

//go:generate go run ./gencontracts lane_contracts.json

//go:embed lane_contracts.json
var laneContractsJSON []byte

// LaneContracts are the contracts of the lane's coach tool routes, by tool
// name, each parsed afresh.
func LaneContracts() map[string]Contract {
	out := map[string]Contract{}
	for _, c := range laneContracts() {
		if c.Tool != "" {
			out[c.Tool] = c
		}
	}
	return out
}

// LaneTraineeContracts are the contracts of the lane's trainee tool
// routes, by trainee tool name, each parsed afresh.
func LaneTraineeContracts() map[string]Contract {
	out := map[string]Contract{}
	for _, c := range laneContracts() {
		for _, name := range c.TraineeTools {
			c := c
			c.Input = c.Input.CloneSchemas()
			out[name] = c
		}
	}
	return out
}

func laneContracts() []Contract {
	var list []Contract
	if err := json.Unmarshal(laneContractsJSON, &list); err != nil {
		panic("tools: lane_contracts.json: " + err.Error())
	}
	return list
}
