package domain

import (
	"encoding/json"

	"github.com/otherwise/perform/internal/money"
)

// A price travels in major units beside its currency, so reading one back
// needs the currency of the record: Product and Subscription decode their
// price after the rest.

func (p *Product) UnmarshalJSON(b []byte) error {
	type plain Product
	w := struct {
		*plain
		Price json.RawMessage `json:"price"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	var err error
	p.Price, err = money.ParseJSON(w.Price, p.Currency)
	return err
}

func (s *Subscription) UnmarshalJSON(b []byte) error {
	type plain Subscription
	w := struct {
		*plain
		Price json.RawMessage `json:"price"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	var err error
	s.Price, err = money.ParseJSON(w.Price, s.Currency)
	return err
}

// Currency is the studio's currency (settings.currency), the one a new plan
// takes when it names none: ILS unless set.
func (s Studio) Currency() string {
	var set struct {
		Currency string `json:"currency"`
	}
	if len(s.Settings) > 0 && json.Unmarshal(s.Settings, &set) == nil {
		if c, ok := money.Code(set.Currency); ok {
			return c
		}
	}
	return money.Default
}
