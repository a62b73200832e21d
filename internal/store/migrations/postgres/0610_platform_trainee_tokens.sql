-- The forward payloads Perform hands an agent platform's auth-context
-- broker when a conversation verifies (internal/lane broker.go): the
-- platform replays one as X-Perform-Trainee-Token on later calls. Only the
-- SHA-256 of a token is kept, with what it is bound to (studio, trainee,
-- platform key, conversation hash, scopes) and when it stops working:
-- expires_at, or revoked_at once the conversation signs out or verifies
-- again.
CREATE TABLE platform_trainee_tokens (
    hash              BYTEA PRIMARY KEY,
    studio_id         TEXT NOT NULL REFERENCES studios(id),
    trainee_id        TEXT NOT NULL,
    key_id            TEXT NOT NULL,
    conversation_hash BYTEA NOT NULL,
    scopes            TEXT NOT NULL,
    expires_at        BIGINT NOT NULL,
    revoked_at        BIGINT,
    created_at        BIGINT NOT NULL
);
CREATE INDEX platform_trainee_tokens_conversation ON platform_trainee_tokens (conversation_hash);
