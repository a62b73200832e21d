-- Drafted training weeks (internal/weekplan) until a coach applies them.
-- A draft that is never applied only expires: its sessions exist only once
-- it is applied, so nothing is left behind.
CREATE TABLE plan_drafts (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL,
    trainee_id   TEXT NOT NULL,
    week_start   TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'applied')),
    requested_by TEXT NOT NULL CHECK (requested_by IN ('trainee', 'coach')),
    coach_id     TEXT,
    plan         TEXT NOT NULL,
    report       TEXT NOT NULL,
    session_ids  TEXT,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    applied_at   INTEGER,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
-- A trainee's drafts of a week, newest first (the coach's "her pending draft").
CREATE INDEX plan_drafts_trainee ON plan_drafts (studio_id, trainee_id, week_start, created_at);
