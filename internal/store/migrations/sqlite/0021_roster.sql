-- What the roster triage (store.Roster) reads studio-wide, each through an
-- index of its own, covering where a fact reads many rows: the last days'
-- check-ins and sessions are one contiguous range of the studio's index,
-- and the weigh-ins never touch the table.
CREATE INDEX checkins_studio_day ON checkins (studio_id, day, trainee_id, readiness);
CREATE INDEX sessions_studio_date ON sessions (studio_id, date, status, trainee_id);
CREATE INDEX weights_trainee_kg ON weights (studio_id, trainee_id, recorded_at, weight_kg);
CREATE INDEX injuries_active ON injuries (studio_id, trainee_id) WHERE status = 'active';
CREATE INDEX programs_active ON programs (studio_id, trainee_id) WHERE status = 'active';
CREATE INDEX subscriptions_active ON subscriptions (studio_id, trainee_id, ends_on) WHERE state = 'active';
CREATE INDEX form_assignments_pending ON form_assignments (studio_id, due_at, trainee_id) WHERE status = 'pending';
