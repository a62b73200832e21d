-- A phone on coaches of several studios (internal/agent): the coach picks
-- the studio, and everything per conversation is kept per phone and studio.

-- The coach's phone in the form the assistant looks senders up by
-- (phone.Key), written by the store with the phone; migrate backfills it.
ALTER TABLE coaches ADD COLUMN phone_key TEXT;
CREATE INDEX coaches_phone_key ON coaches (phone_key) WHERE phone_key IS NOT NULL;

-- The studio a phone talks to, as its coach chose it (or as the one studio
-- that had the phone when it first wrote). A studio adding the phone later
-- does not change it; only the coach does, from that phone.
CREATE TABLE agent_phone_links (
    phone     TEXT PRIMARY KEY,
    studio_id TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    coach_id  TEXT NOT NULL REFERENCES coaches (id) ON DELETE CASCADE,
    chosen_at INTEGER NOT NULL
);

-- The numbered list of coaches (one per studio line) a phone was asked to
-- choose from, kept until the coach answers with a number.
CREATE TABLE agent_studio_choices (
    phone     TEXT PRIMARY KEY,
    coach_ids TEXT NOT NULL,
    asked_at  INTEGER NOT NULL
);

-- History is per phone and studio. Entries written before this migration
-- belong to no studio (studio_id '') and are never read again; they age out
-- in 48 hours.
ALTER TABLE agent_history ADD COLUMN studio_id TEXT NOT NULL DEFAULT '';
DROP INDEX agent_history_phone;
CREATE INDEX agent_history_conversation ON agent_history (phone, studio_id, seq);

-- The daily cap is per phone and studio. Today's counts of the old per-phone
-- cap are not carried over: they cannot be assigned to a studio.
DROP TABLE agent_caps;
CREATE TABLE agent_caps (
    phone     TEXT NOT NULL,
    studio_id TEXT NOT NULL,
    day       TEXT NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (phone, studio_id, day)
);

-- The studio a turn ran in, written when its reply is decided.
ALTER TABLE agent_turns ADD COLUMN studio_id TEXT;
