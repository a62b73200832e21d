-- Trainees on the WhatsApp assistant (internal/agent, trainee.go).

-- The trainee record a phone talks to the assistant as. A phone no coach
-- has gets one on its first message; a phone that is also a coach's only
-- when she chooses her trainee record, and loses it when she chooses a
-- coach's again.
CREATE TABLE agent_trainee_links (
    phone      TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    chosen_at  INTEGER NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);

-- Her answer to what the assistant keeps and for whom: agreed_at when she
-- said yes, stopped_at when she said stop; the later of the two holds.
CREATE TABLE agent_trainee_consents (
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    phone      TEXT NOT NULL,
    agreed_at  INTEGER,
    stopped_at INTEGER,
    PRIMARY KEY (studio_id, trainee_id),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);

-- What her turns logged, in order, so "undo" withdraws the last one (the
-- lane decides whether it still may).
CREATE TABLE agent_trainee_logs (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    record_id  TEXT NOT NULL,
    summary    TEXT NOT NULL,
    logged_at  INTEGER NOT NULL,
    undone_at  INTEGER,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX agent_trainee_logs_person ON agent_trainee_logs (studio_id, trainee_id, seq);

-- Whose turn it was, so the cost report keeps coaches and trainees apart.
ALTER TABLE agent_turns ADD COLUMN role TEXT NOT NULL DEFAULT 'coach';
