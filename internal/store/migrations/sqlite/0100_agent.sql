-- The WhatsApp agent's tables (internal/agent). Instants are unix
-- milliseconds. Rows are keyed by the sender's phone in E.164.

-- Inbound messages waiting for (or claimed by) a reply turn. seq orders a
-- phone's burst; state is pending, claimed (turn_id set) or dropped (too old).
CREATE TABLE agent_messages (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    phone           TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    received_at     INTEGER NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending',
    turn_id         TEXT
);
CREATE INDEX agent_messages_pending ON agent_messages (phone, state, seq);
CREATE INDEX agent_messages_received ON agent_messages (received_at);

-- One reply turn: the burst it answers and how far it got. state is open
-- (deciding the reply), sending (chunks written, some maybe unsent) or done.
-- counted marks that the turn was added to the daily cap, so a resumed turn
-- is not counted twice.
CREATE TABLE agent_turns (
    id              TEXT PRIMARY KEY,
    phone           TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    state           TEXT NOT NULL,
    counted         INTEGER NOT NULL DEFAULT 0,
    outcome         TEXT,
    created_at      INTEGER NOT NULL,
    finished_at     INTEGER
);
CREATE INDEX agent_turns_phone_state ON agent_turns (phone, state, created_at);
CREATE INDEX agent_turns_created ON agent_turns (created_at);

-- Every message a turn sends, split into chunks; sent_at is written right
-- after the gateway accepts one, so a resumed turn sends only the rest.
CREATE TABLE agent_chunks (
    turn_id         TEXT NOT NULL REFERENCES agent_turns (id) ON DELETE CASCADE,
    idx             INTEGER NOT NULL,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    sent_at         INTEGER,
    PRIMARY KEY (turn_id, idx)
);

-- Conversation memory handed to the model: the last 24 entries, 48 hours.
CREATE TABLE agent_history (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    phone      TEXT NOT NULL,
    role       TEXT NOT NULL,
    text       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX agent_history_phone ON agent_history (phone, seq);
CREATE INDEX agent_history_created ON agent_history (created_at);

-- Handled bursts per phone per UTC day.
CREATE TABLE agent_caps (
    phone TEXT NOT NULL,
    day   TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (phone, day)
);

-- Short leases that keep one turn per phone (and one key mint per studio)
-- across processes; a holder renews its lease while it works.
CREATE TABLE agent_leases (
    name       TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);
