package storetest

import (
	"bytes"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The browser sign-in's state (store.LoginStore). Its tables are global
// and keyed by hash or phone, so each test uses values of its own.

func testLogin(t *testing.T, st store.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"PeopleByPhone", testLoginPeople},
		{"Challenges", testLoginChallenges},
		{"Sessions", testLoginSessions},
		{"Counters", testLoginCounters},
		{"Sweep", testLoginSweep},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
	}
}

// loginClock is a fixed instant the sign-in tests move by hand.
var loginClock = time.Date(2026, 5, 4, 8, 0, 0, 0, time.UTC)

func hashOf(s string) []byte {
	h := sha256.Sum256([]byte(s + randomHex(8)))
	return h[:]
}

func testLoginPeople(t *testing.T, st store.Store) {
	lg := st.Login()
	ph := newPhone()
	a, b, c := newStudio(t, st), newStudio(t, st), newStudio(t, st)
	// The coach's phone as typed nationally; the lookup is by its key.
	national := "0" + ph[4:6] + "-" + ph[6:]
	coach := domain.Coach{Name: "דנה לוי", Phone: &national, Gender: ptr("female"), Active: true}
	must(t, "CreateCoach", st.Studio(a.ID).CreateCoach(ctx, &coach))
	inactive := domain.Coach{Name: "Gone", Phone: ptr(ph), Active: false}
	must(t, "CreateCoach inactive", st.Studio(c.ID).CreateCoach(ctx, &inactive))
	tr := domain.Trainee{FirstName: "Noa", LastName: "Bar", Phone: ph, Gender: ptr("female")}
	must(t, "CreateTrainee", st.Studio(b.ID).CreateTrainee(ctx, &tr))
	archived := domain.Trainee{FirstName: "Old", LastName: "One", Phone: ph, Status: domain.TraineeArchived}
	must(t, "CreateTrainee archived", st.Studio(c.ID).CreateTrainee(ctx, &archived))
	coachInB := domain.Coach{Name: "Avi", Phone: ptr(ph), Active: true}
	must(t, "CreateCoach in B", st.Studio(b.ID).CreateCoach(ctx, &coachInB))

	people, err := lg.PeopleByPhone(ctx, ph)
	must(t, "PeopleByPhone", err)
	want := map[string]store.LoginPerson{
		coach.ID:    {StudioID: a.ID, StudioName: a.Name, Kind: store.LoginCoach, SubjectID: coach.ID, Name: "דנה לוי", Gender: "female"},
		coachInB.ID: {StudioID: b.ID, StudioName: b.Name, Kind: store.LoginCoach, SubjectID: coachInB.ID, Name: "Avi"},
		tr.ID:       {StudioID: b.ID, StudioName: b.Name, Kind: store.LoginTrainee, SubjectID: tr.ID, Name: "Noa Bar", Gender: "female"},
	}
	if len(people) != len(want) {
		t.Fatalf("PeopleByPhone = %+v, want the active coaches and the trainee not archived: %+v", people, want)
	}
	for _, p := range people {
		if p != want[p.SubjectID] {
			t.Fatalf("PeopleByPhone has %+v, want %+v", p, want[p.SubjectID])
		}
	}
	// Within a studio, coaches come before trainees.
	for i := 1; i < len(people); i++ {
		if people[i-1].StudioID == people[i].StudioID && people[i-1].Kind == store.LoginTrainee && people[i].Kind == store.LoginCoach {
			t.Fatalf("PeopleByPhone order = %+v: a trainee before a coach of the same studio", people)
		}
	}
	if none, err := lg.PeopleByPhone(ctx, newPhone()); err != nil || len(none) != 0 {
		t.Fatalf("PeopleByPhone(unknown) = %+v, %v; want none", none, err)
	}

	p, err := lg.Person(ctx, b.ID, store.LoginTrainee, tr.ID)
	if err != nil || p != want[tr.ID] {
		t.Fatalf("Person(trainee) = %+v, %v", p, err)
	}
	_, err = lg.Person(ctx, a.ID, store.LoginTrainee, tr.ID)
	mustNotFound(t, "Person in another studio", err)
	_, err = lg.Person(ctx, b.ID, store.LoginCoach, tr.ID)
	mustNotFound(t, "Person of the wrong kind", err)
	_, err = lg.Person(ctx, c.ID, store.LoginCoach, inactive.ID)
	mustNotFound(t, "Person inactive coach", err)
	_, err = lg.Person(ctx, c.ID, store.LoginTrainee, archived.ID)
	mustNotFound(t, "Person archived trainee", err)

	regions, err := lg.StudioRegions(ctx)
	must(t, "StudioRegions", err)
	found := false
	for i, r := range regions {
		found = found || r == a.Region
		if i > 0 && regions[i-1] >= r {
			t.Fatalf("StudioRegions = %v, want distinct and sorted", regions)
		}
	}
	if !found {
		t.Fatalf("StudioRegions = %v, want %s among them", regions, a.Region)
	}
}

func testLoginChallenges(t *testing.T, st store.Store) {
	lg := st.Login()
	h := hashOf("browser")
	_, err := lg.Challenge(ctx, h)
	mustNotFound(t, "Challenge before any", err)

	c := store.LoginChallenge{Hash: h, Phone: "+972581112233", Next: "/authorize?x=1",
		CreatedAt: loginClock, ExpiresAt: loginClock.Add(10 * time.Minute)}
	must(t, "PutChallenge", lg.PutChallenge(ctx, c))
	got, err := lg.Challenge(ctx, h)
	must(t, "Challenge", err)
	if got.Phone != c.Phone || got.Next != c.Next ||
		!sameTime(got.CreatedAt, c.CreatedAt) || !sameTime(got.ExpiresAt, c.ExpiresAt) || got.VerifiedAt != nil {
		t.Fatalf("Challenge = %+v, want %+v", got, c)
	}
	must(t, "VerifyChallenge", lg.VerifyChallenge(ctx, h, loginClock.Add(time.Minute)))
	got, _ = lg.Challenge(ctx, h)
	if got.VerifiedAt == nil || !sameTime(*got.VerifiedAt, loginClock.Add(time.Minute)) {
		t.Fatalf("after verify: %+v", got)
	}

	// A new sign-in of the same browser replaces the old one whole.
	c2 := c
	c2.Phone, c2.Next = "+972584445566", ""
	must(t, "PutChallenge again", lg.PutChallenge(ctx, c2))
	got, _ = lg.Challenge(ctx, h)
	if got.Phone != c2.Phone || got.VerifiedAt != nil || got.Next != "" {
		t.Fatalf("replaced challenge = %+v, want %+v", got, c2)
	}
	must(t, "DeleteChallenge", lg.DeleteChallenge(ctx, h))
	_, err = lg.Challenge(ctx, h)
	mustNotFound(t, "Challenge after delete", err)
	mustNotFound(t, "VerifyChallenge after delete", lg.VerifyChallenge(ctx, h, loginClock))
}

func testLoginSessions(t *testing.T, st store.Store) {
	lg := st.Login()
	studio := newStudio(t, st)
	ss := st.Studio(studio.ID)
	coach := domain.Coach{Name: "Maya", Phone: ptr(newPhone()), Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &coach))
	h := hashOf("session")
	s := store.BrowserSession{Hash: h, StudioID: studio.ID, Kind: store.LoginCoach, SubjectID: coach.ID,
		CreatedAt: loginClock, LastSeenAt: loginClock, ExpiresAt: loginClock.Add(12 * time.Hour)}
	must(t, "CreateSession", lg.CreateSession(ctx, s))

	got, p, err := lg.Session(ctx, h, loginClock.Add(time.Hour))
	must(t, "Session", err)
	if got.SubjectID != coach.ID || got.StudioID != studio.ID || !sameTime(got.ExpiresAt, s.ExpiresAt) || p.Name != "Maya" || p.StudioName != studio.Name || p.Kind != store.LoginCoach {
		t.Fatalf("Session = %+v, %+v", got, p)
	}
	_, _, err = lg.Session(ctx, h, s.ExpiresAt)
	mustNotFound(t, "Session at its end", err)

	later := loginClock.Add(11 * time.Hour)
	must(t, "TouchSession", lg.TouchSession(ctx, h, later, later.Add(12*time.Hour)))
	got, _, err = lg.Session(ctx, h, s.ExpiresAt.Add(time.Hour))
	if err != nil || !sameTime(got.LastSeenAt, later) || !sameTime(got.CreatedAt, loginClock) {
		t.Fatalf("Session after a touch = %+v, %v", got, err)
	}

	// A coach made inactive signs in no more: the session is not found.
	coach.Active = false
	must(t, "UpdateCoach", ss.UpdateCoach(ctx, &coach))
	_, _, err = lg.Session(ctx, h, later)
	mustNotFound(t, "Session of an inactive coach", err)
	coach.Active = true
	must(t, "UpdateCoach back", ss.UpdateCoach(ctx, &coach))

	must(t, "DeleteSession", lg.DeleteSession(ctx, h))
	_, _, err = lg.Session(ctx, h, later)
	mustNotFound(t, "Session after delete", err)
	mustNotFound(t, "TouchSession after delete", lg.TouchSession(ctx, h, later, later))

	// A trainee's session ends with the trainee.
	tr := newTrainee(t, ss, "Tal", "Ron")
	th := hashOf("trainee session")
	must(t, "CreateSession trainee", lg.CreateSession(ctx, store.BrowserSession{Hash: th, StudioID: studio.ID, Kind: store.LoginTrainee, SubjectID: tr.ID,
		CreatedAt: loginClock, LastSeenAt: loginClock, ExpiresAt: loginClock.Add(time.Hour)}))
	if _, p, err := lg.Session(ctx, th, loginClock); err != nil || p.Name != "Tal Ron" {
		t.Fatalf("trainee Session = %+v, %v", p, err)
	}
	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, tr.ID))
	_, _, err = lg.Session(ctx, th, loginClock)
	mustNotFound(t, "Session of a deleted trainee", err)
}

func testLoginCounters(t *testing.T, st store.Store) {
	lg := st.Login()
	name := "test:" + randomHex(6)
	end := loginClock.Add(15 * time.Minute)
	for want := 1; want <= 3; want++ {
		n, err := lg.Hit(ctx, name, end)
		if err != nil || n != want {
			t.Fatalf("Hit #%d = %d, %v", want, n, err)
		}
	}
	if n, err := lg.Hit(ctx, "other:"+randomHex(6), end); err != nil || n != 1 {
		t.Fatalf("Hit on another counter = %d, %v; want 1", n, err)
	}
	// The next window starts again.
	if n, err := lg.Hit(ctx, name, end.Add(15*time.Minute)); err != nil || n != 1 {
		t.Fatalf("Hit in the next window = %d, %v; want 1", n, err)
	}
	if n, err := lg.Hit(ctx, name, end.Add(15*time.Minute)); err != nil || n != 2 {
		t.Fatalf("second Hit in the next window = %d, %v; want 2", n, err)
	}
}

func testLoginSweep(t *testing.T, st store.Store) {
	lg := st.Login()
	studio := newStudio(t, st)
	coach := domain.Coach{Name: "Sweep", Phone: ptr(newPhone()), Active: true}
	must(t, "CreateCoach", st.Studio(studio.ID).CreateCoach(ctx, &coach))
	// Far in the future, so other tests' rows are swept and these are not
	// before the sweep's instant.
	now := loginClock.AddDate(50, 0, 0)
	old, live := hashOf("old"), hashOf("live")
	for _, h := range [][]byte{old, live} {
		exp := now.Add(time.Minute)
		if bytes.Equal(h, old) {
			exp = now
		}
		must(t, "PutChallenge", lg.PutChallenge(ctx, store.LoginChallenge{Hash: h, Phone: "+972580000000", CreatedAt: now, ExpiresAt: exp}))
		must(t, "CreateSession", lg.CreateSession(ctx, store.BrowserSession{Hash: h, StudioID: studio.ID, Kind: store.LoginCoach, SubjectID: coach.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: exp}))
	}
	oldCounter, liveCounter := "sweep:"+randomHex(6), "sweep:"+randomHex(6)
	_, err := lg.Hit(ctx, oldCounter, now)
	must(t, "Hit old", err)
	_, err = lg.Hit(ctx, liveCounter, now.Add(time.Minute))
	must(t, "Hit live", err)

	must(t, "SweepLogin", lg.SweepLogin(ctx, now))
	_, err = lg.Challenge(ctx, old)
	mustNotFound(t, "swept challenge", err)
	if _, err := lg.Challenge(ctx, live); err != nil {
		t.Fatalf("a live challenge was swept: %v", err)
	}
	_, _, err = lg.Session(ctx, old, now.Add(-time.Minute))
	mustNotFound(t, "swept session", err)
	if _, _, err := lg.Session(ctx, live, now); err != nil {
		t.Fatalf("a live session was swept: %v", err)
	}
	// A swept counter starts again; a live one goes on.
	if n, _ := lg.Hit(ctx, oldCounter, now); n != 1 {
		t.Fatalf("swept counter Hit = %d, want 1", n)
	}
	if n, _ := lg.Hit(ctx, liveCounter, now.Add(time.Minute)); n != 2 {
		t.Fatalf("live counter Hit = %d, want 2", n)
	}
}
