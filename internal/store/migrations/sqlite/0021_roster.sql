-- What the roster triage (store.Roster) reads studio-wide, each through
-- an index of its own rather than a scan of the studio's rows.
CREATE INDEX checkins_studio_day ON checkins (studio_id, day);
CREATE INDEX injuries_active ON injuries (studio_id, trainee_id) WHERE status = 'active';
CREATE INDEX programs_active ON programs (studio_id, trainee_id) WHERE status = 'active';
CREATE INDEX subscriptions_active ON subscriptions (studio_id, trainee_id, ends_on) WHERE state = 'active';
CREATE INDEX form_assignments_pending ON form_assignments (studio_id, due_at) WHERE status = 'pending';
