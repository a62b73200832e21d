package fakes

import (
	"regexp"
	"strconv"
)

// WeighInModel is a model that obeys a trainee line by line: each step logs
// the next weigh-in of her last message (a line "<word> 70.4") it has not
// logged yet, one log_weight call per step, and answers once all are
// logged. WeighIns reads the weights a text holds.
type WeighInModel struct{ line *regexp.Regexp }

// NewWeighInModel is the model for weigh-ins written "<word> 70.4".
func NewWeighInModel(word string) WeighInModel {
	return WeighInModel{regexp.MustCompile(regexp.QuoteMeta(word) + ` (\d+(?:\.\d)?)`)}
}

// WeighIns are the weights text holds, in order.
func (m WeighInModel) WeighIns(text string) []float64 {
	var out []float64
	for _, x := range m.line.FindAllStringSubmatch(text, -1) {
		w, _ := strconv.ParseFloat(x[1], 64)
		out = append(out, w)
	}
	return out
}

// Reply is the model's next step: the tool calls since her last message
// with text count what is logged.
func (m WeighInModel) Reply(req MessagesRequest) Reply {
	text, done := "", 0
	for i := len(req.Messages) - 1; i >= 0; i-- {
		msg := req.Messages[i]
		if msg.Role == "assistant" {
			for _, b := range msg.Content {
				if b.Type == "tool_use" {
					done++
				}
			}
			continue
		}
		for _, b := range msg.Content {
			if b.Type == "text" {
				if text != "" {
					text += "\n"
				}
				text += b.Text
			}
		}
		if text != "" {
			break
		}
	}
	if weights := m.WeighIns(text); done < len(weights) {
		return CallTool("log_weight", map[string]any{"weightKg": weights[done]})
	}
	return Text("רשמתי")
}
