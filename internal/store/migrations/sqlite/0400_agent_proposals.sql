-- Writes the WhatsApp assistant proposes and the coach confirms
-- (internal/agent): bound to the studio and the coach's phone, numbered
-- as the coach sees them, and moved through pending -> confirmed ->
-- executed | failed, or declined, expired, cancelled (the kill switch).
-- The id is the Idempotency-Key the confirmed write is sent with.
CREATE TABLE agent_proposals (
    id              TEXT PRIMARY KEY,
    studio_id       TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    phone           TEXT NOT NULL,
    turn_id         TEXT NOT NULL,
    num             INTEGER NOT NULL,
    tool            TEXT NOT NULL,
    args            TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    summary         TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending',
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    decided_turn_id TEXT,
    decided_at      INTEGER,
    outcome         TEXT NOT NULL DEFAULT '',
    finished_at     INTEGER
);
CREATE INDEX agent_proposals_phone ON agent_proposals (phone, studio_id, state);
CREATE INDEX agent_proposals_decided ON agent_proposals (decided_turn_id) WHERE decided_turn_id IS NOT NULL;
CREATE INDEX agent_proposals_studio ON agent_proposals (studio_id, state);
