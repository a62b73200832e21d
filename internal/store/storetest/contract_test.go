package storetest_test

import (
	"testing"

	"github.com/otherwise/perform/internal/store/storetest"
)

func TestContract(t *testing.T) {
	for name, open := range storetest.Openers(t) {
		t.Run(name, func(t *testing.T) { storetest.Run(t, open) })
	}
}
