-- Answers of lane writes sent with an Idempotency-Key, so a retried request
-- is answered from the first one's record instead of writing twice. status
-- is 0 while the first request is still running. Rows live 24 hours; the
-- daily upkeep (store.Optimize) deletes older ones.
CREATE TABLE idempotency_keys (
    studio_id    TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL,
    body         BYTEA,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (studio_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
