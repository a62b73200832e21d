package storetest_test

import (
	"context"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

func TestSmoke(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			s := domain.Studio{Name: "A", Slug: "a"}
			if err := st.CreateStudio(ctx, &s); err != nil {
				t.Fatal(err)
			}
			tr := domain.Trainee{FirstName: "Dana", LastName: "Cohen", Phone: "+972501234567", Tags: []string{"x"}}
			if err := st.Studio(s.ID).CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"dana", "0501234", "na co", "da"} {
				l, err := st.Studio(s.ID).SearchTrainees(ctx, store.TraineeFilter{Q: q, Page: store.Page{Limit: 10}})
				if err != nil || l.Total != 1 {
					t.Fatalf("%q: %v %+v", q, err, l)
				}
			}
		})
	}
}
