// Package requests holds the requests benchmark: the questions a coach and
// a trainee put to an AI, each made with the tool calls a model would
// choose, on the demo studio, and checked against facts read from the
// store directly (never through the lane). Run it with
//
//	go test ./internal/requests -run Requests -v
//
// Each request prints its calls and answer tokens; the last line is
// "requests: N of M answered within budget" (at most 2 calls and 2,500
// answer tokens each).
package requests
