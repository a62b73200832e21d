-- A payment processor's webhook per studio (internal/areas/payhook).
-- Instants are unix milliseconds.

-- The studio's webhook: the SHA-256 of the token in its URL (the token
-- itself is shown once, when made) and its signing secret sealed under
-- PERFORM_SECRET_KEY (internal/secret), bound to the studio. No row: off.
CREATE TABLE payment_hooks (
    studio_id     TEXT PRIMARY KEY REFERENCES studios (id) ON DELETE CASCADE,
    token_hash    BLOB NOT NULL UNIQUE,
    token_hint    TEXT NOT NULL,
    secret_sealed TEXT NOT NULL,
    processor     TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    rotated_at    INTEGER NOT NULL
);

-- Every event the webhook took, once: (studio_id, processor, event_id) is
-- unique, so a replayed or concurrent delivery is one row and one payment.
-- outcome is recorded (a payment or refund was recorded), already_recorded
-- (its payment came in another event), unmatched (no trainee found; kept
-- for the coach), payment_failed (a failed invoice), ignored (nothing to
-- record). payer is what the processor said of who paid (name, email,
-- phone), for the coach to match by.
CREATE TABLE payment_events (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    processor    TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    type         TEXT NOT NULL,
    object_id    TEXT NOT NULL DEFAULT '',
    external_id  TEXT NOT NULL DEFAULT '',
    reverses     TEXT NOT NULL DEFAULT '',
    amount_minor INTEGER NOT NULL DEFAULT 0,
    currency     TEXT NOT NULL DEFAULT '',
    payer        TEXT NOT NULL DEFAULT '',
    trainee_id   TEXT REFERENCES trainees (id) ON DELETE SET NULL,
    payment_id   TEXT NOT NULL DEFAULT '',
    outcome      TEXT NOT NULL,
    detail       TEXT NOT NULL DEFAULT '',
    livemode     INTEGER NOT NULL,
    occurred_at  INTEGER NOT NULL,
    received_at  INTEGER NOT NULL,
    UNIQUE (studio_id, processor, event_id)
);
CREATE INDEX payment_events_outcome ON payment_events (studio_id, outcome, received_at);
CREATE INDEX payment_events_object ON payment_events (studio_id, object_id);
