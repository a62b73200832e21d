-- The model budget's durable counters: tokens spent by every model-costing
-- call (the assistant's turns and the weekly plans alike), per person per
-- day (subject 'person:<id>', window the UTC day's start) and per studio
-- per hour (subject 'studio', window the hour's start), in milliseconds.
CREATE TABLE model_budget (
    studio_id    TEXT NOT NULL,
    subject      TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    tokens       BIGINT NOT NULL,
    calls        BIGINT NOT NULL,
    PRIMARY KEY (studio_id, subject, window_start)
);

-- Model calls made outside an assistant's turn (a weekly plan's
-- refinement: one row per draft, calls its model calls and the tokens
-- theirs): perform agent cost sums them beside the turns' steps.
CREATE TABLE model_calls (
    seq                   BIGSERIAL PRIMARY KEY,
    studio_id             TEXT NOT NULL,
    purpose               TEXT NOT NULL,
    ref                   TEXT NOT NULL,
    model                 TEXT NOT NULL,
    calls                 BIGINT NOT NULL,
    input_tokens          BIGINT NOT NULL,
    output_tokens         BIGINT NOT NULL,
    cache_write_tokens    BIGINT NOT NULL,
    cache_write_1h_tokens BIGINT NOT NULL,
    cache_read_tokens     BIGINT NOT NULL,
    created_at            BIGINT NOT NULL
);
CREATE INDEX model_calls_at ON model_calls (created_at);
