-- An agent platform's conversations that asked to verify an end user
-- (internal/lane platform.go). hash is the SHA-256 of (platform key id,
-- tenant id, conversation id): the platform's ids are not kept. A row
-- holds the one pending code (as a hash; none when the claimed phone or id
-- matched no trainee, so the answer is the same), its wrong tries, and
-- once the code was right the trainee the conversation acts as, until
-- verified_until.
CREATE TABLE platform_conversations (
    hash            BLOB PRIMARY KEY,
    studio_id       TEXT NOT NULL REFERENCES studios(id),
    trainee_id      TEXT,
    code_hash       BLOB,
    tries           BIGINT NOT NULL,
    code_expires_at BIGINT NOT NULL,
    verified_at     BIGINT,
    verified_until  BIGINT,
    created_at      BIGINT NOT NULL
);
