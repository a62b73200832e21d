package lane_test

import (
	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
)

func init() { lane.SetAllAreas(areas.All(areas.Options{})) }
