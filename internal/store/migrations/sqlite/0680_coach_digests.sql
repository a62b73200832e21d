-- The coach's morning digest on WhatsApp (internal/agent, digest.go).
-- Instants are unix milliseconds.

-- A coach's choice: whether she gets the digest and at which hour of the
-- studio's day (0-23). No row means she has not opted in.
CREATE TABLE coach_digests (
    coach_id   TEXT PRIMARY KEY REFERENCES coaches (id) ON DELETE CASCADE,
    studio_id  TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    enabled    INTEGER NOT NULL,
    hour       INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
    updated_at INTEGER NOT NULL
);
CREATE INDEX coach_digests_enabled ON coach_digests (enabled, coach_id);

-- One row per coach and local day: the claim that makes the digest go out
-- once across instances, and then its outcome. state is claimed (its job
-- is queued or running), sending (a message is being handed to the
-- gateway; a run that finds the row so knows an earlier one died there and
-- does not send again), or one of sent, template,
-- skipped_window, skipped_off, skipped_pilot, skipped_disconnected,
-- skipped_empty, failed. plan is what the digest sends (JSON), written when
-- it first moves to sending, so a retry sends the same messages; sent counts
-- the messages the gateway has taken, so a retry sends only the rest.
CREATE TABLE agent_digests (
    coach_id    TEXT NOT NULL REFERENCES coaches (id) ON DELETE CASCADE,
    day         TEXT NOT NULL,
    studio_id   TEXT NOT NULL,
    state       TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT '',
    plan        TEXT,
    sent        INTEGER NOT NULL DEFAULT 0,
    claimed_at  INTEGER NOT NULL,
    finished_at INTEGER,
    PRIMARY KEY (coach_id, day)
);
CREATE INDEX agent_digests_claimed ON agent_digests (claimed_at);
