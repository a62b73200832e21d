-- The model budget's durable counters: tokens spent by every model-costing
-- call (the assistant's turns and the weekly plans alike), per person per
-- day (subject 'person:<id>', window the UTC day's start) and per studio
-- per hour (subject 'studio', window the hour's start), in milliseconds.
CREATE TABLE model_budget (
    studio_id    TEXT NOT NULL,
    subject      TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    tokens       INTEGER NOT NULL,
    calls        INTEGER NOT NULL,
    PRIMARY KEY (studio_id, subject, window_start)
);

-- Model calls made outside an assistant's turn (a weekly plan's
-- refinement: one row per draft, calls its model calls and the tokens
-- theirs): perform agent cost sums them beside the turns' steps.
CREATE TABLE model_calls (
    seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
    studio_id             TEXT NOT NULL,
    purpose               TEXT NOT NULL,
    ref                   TEXT NOT NULL,
    model                 TEXT NOT NULL,
    calls                 INTEGER NOT NULL,
    input_tokens          INTEGER NOT NULL,
    output_tokens         INTEGER NOT NULL,
    cache_write_tokens    INTEGER NOT NULL,
    cache_write_1h_tokens INTEGER NOT NULL,
    cache_read_tokens     INTEGER NOT NULL,
    created_at            INTEGER NOT NULL
);
CREATE INDEX model_calls_at ON model_calls (created_at);
