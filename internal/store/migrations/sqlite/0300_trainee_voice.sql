-- What a trainee says and how the studio's coaching voice speaks to them.

-- A trainee's feedback on the experience, kept for the studio to read.
CREATE TABLE trainee_feedback (
    id         TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    text       TEXT NOT NULL,
    rating     INTEGER CHECK (rating BETWEEN 1 AND 5),
    topic      TEXT,
    source     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
-- The studio reads it newest first; deleting a trainee finds theirs.
CREATE INDEX trainee_feedback_studio ON trainee_feedback (studio_id, created_at, id);
CREATE INDEX trainee_feedback_trainee ON trainee_feedback (studio_id, trainee_id);

-- The studio's own coaching persona; a studio without a row has Perform's default.
CREATE TABLE studio_personas (
    studio_id  TEXT PRIMARY KEY REFERENCES studios (id) ON DELETE CASCADE,
    persona    TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
