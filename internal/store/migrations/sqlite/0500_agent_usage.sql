-- The model's usage, per step of a turn (internal/agent): what each
-- Messages API call was billed, so a day's cost can be read per studio.
-- A step belongs to its turn and goes when the turn is swept. step is the
-- call's number within its attempt (0 to 7); a turn resumed after a crash
-- records its calls again, as they were paid again.
CREATE TABLE agent_turn_steps (
    seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
    turn_id               TEXT NOT NULL REFERENCES agent_turns (id) ON DELETE CASCADE,
    step                  INTEGER NOT NULL,
    model                 TEXT NOT NULL,
    input_tokens          INTEGER NOT NULL,
    output_tokens         INTEGER NOT NULL,
    cache_write_tokens    INTEGER NOT NULL,
    cache_write_1h_tokens INTEGER NOT NULL,
    cache_read_tokens     INTEGER NOT NULL,
    created_at            INTEGER NOT NULL
);
CREATE INDEX agent_turn_steps_turn ON agent_turn_steps (turn_id, seq);
CREATE INDEX agent_turn_steps_created ON agent_turn_steps (created_at);
