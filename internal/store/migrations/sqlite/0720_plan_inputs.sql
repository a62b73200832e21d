-- What the weekly plan reads beside an injury's area and severity: its kind
-- (domain.InjuryKinds; '' is pain without a diagnosis), and the training
-- profile's sport, goal and health conditions (a JSON list of
-- domain.HealthConditions codes: health data, read under the health scopes).
ALTER TABLE injuries ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE training_profiles ADD COLUMN sport TEXT NOT NULL DEFAULT '';
ALTER TABLE training_profiles ADD COLUMN goal TEXT NOT NULL DEFAULT '';
ALTER TABLE training_profiles ADD COLUMN conditions TEXT NOT NULL DEFAULT '[]';

-- A draft now keeps the fingerprint of what the rules read (a pending draft
-- is answered again only while it is the same), a status superseded (a
-- newer draft of the week replaced it, superseded_reason says why), where
-- the model's refinement stands (pending, done, failed, skipped; note says
-- why), and the coaches' task about the week (one per trainee and week).
-- SQLite cannot change a CHECK: the table is rebuilt (nothing refers to it).
CREATE TABLE plan_drafts_new (
    id                TEXT PRIMARY KEY,
    studio_id         TEXT NOT NULL,
    trainee_id        TEXT NOT NULL,
    week_start        TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('pending', 'applied', 'superseded')),
    requested_by      TEXT NOT NULL CHECK (requested_by IN ('trainee', 'coach')),
    coach_id          TEXT,
    plan              TEXT NOT NULL,
    report            TEXT NOT NULL,
    session_ids       TEXT,
    created_at        INTEGER NOT NULL,
    expires_at        INTEGER NOT NULL,
    applied_at        INTEGER,
    fingerprint       TEXT NOT NULL DEFAULT '',
    superseded_reason TEXT,
    refinement        TEXT NOT NULL DEFAULT 'skipped' CHECK (refinement IN ('pending', 'done', 'failed', 'skipped')),
    refinement_note   TEXT,
    task_ids          TEXT,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
INSERT INTO plan_drafts_new (id, studio_id, trainee_id, week_start, status, requested_by, coach_id, plan, report, session_ids, created_at, expires_at, applied_at)
    SELECT id, studio_id, trainee_id, week_start, status, requested_by, coach_id, plan, report, session_ids, created_at, expires_at, applied_at FROM plan_drafts;
DROP TABLE plan_drafts;
ALTER TABLE plan_drafts_new RENAME TO plan_drafts;
CREATE INDEX plan_drafts_trainee ON plan_drafts (studio_id, trainee_id, week_start, created_at);
