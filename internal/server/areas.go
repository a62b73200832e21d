package server

import "github.com/otherwise/perform/internal/modelbudget"

// Budget is the one model budget (internal/modelbudget): a plug-in that
// calls a model (the WhatsApp assistant) checks and charges it.
func (p *Parts) Budget() *modelbudget.Budget { return p.s.areas.Budget }
