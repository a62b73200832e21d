package login_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The signed-in page calls a woman מאמנת or מתאמנת and a man מאמן or
// מתאמן, from the gender on the record; with none (or other) it names both
// forms. The sign-in page before it addresses no one by gender.
func TestSignedInRoleFollowsGender(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOpts{})
		w := e.newWorld()
		ss := st.Studio(w.studio.ID)
		w.coach.Gender = ptr("female")
		must(t, ss.UpdateCoach(ctx, &w.coach))
		man := domain.Trainee{FirstName: "Omer", LastName: "Tal", Phone: newPhone("3333"), Gender: ptr("male")}
		must(t, ss.CreateTrainee(ctx, &man))
		other := domain.Trainee{FirstName: "Alex", LastName: "Ro", Phone: newPhone("4444"), Gender: ptr("other")}
		must(t, ss.CreateTrainee(ctx, &other))
		for _, c := range []struct {
			who, phone, want string
			not              []string
		}{
			{"a woman coach", *w.coach.Phone, "(מאמנת בסטודיו", []string{"מאמן/ת", "(מאמן "}},
			{"a woman trainee", w.trainee.Phone, "(מתאמן/ת בסטודיו", nil}, // no gender on her record
			{"a man trainee", man.Phone, "(מתאמן בסטודיו", []string{"מתאמנת", "מתאמן/ת"}},
			{"a trainee of another gender", other.Phone, "(מתאמן/ת בסטודיו", []string{"מתאמנת", "(מתאמן "}},
		} {
			b := e.browser()
			if page := b.get("/login?lang=he"); strings.Contains(page.body, "המאמן או המתאמן") {
				t.Errorf("the sign-in page addresses a gender: %s", page.body)
			}
			b.signIn(c.phone, "")
			page := b.get("/login")
			if !strings.Contains(page.body, c.want) {
				t.Errorf("%s signed in: want %q in %s", c.who, c.want, page.body)
			}
			for _, n := range c.not {
				if strings.Contains(page.body, n) {
					t.Errorf("%s signed in: the page says %q: %s", c.who, n, page.body)
				}
			}
		}
	})
}
