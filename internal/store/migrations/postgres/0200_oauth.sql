-- The OAuth authorization server's tables (internal/oauth). Instants are
-- unix milliseconds. Codes, tokens and client secrets are kept only as
-- SHA-256 hashes; lookups are by hash, across studios.

-- A client: registered (RFC 7591), added from the command line, or known
-- by the URL of its client ID metadata document (id = that URL; the row is
-- the cached document, refetched after expires_at).
CREATE TABLE oauth_clients (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    source        TEXT NOT NULL,            -- metadata, registered or cli
    redirect_uris TEXT NOT NULL,            -- JSON array
    auth_method   TEXT NOT NULL,            -- none, client_secret_basic, client_secret_post
    secret_hash   BYTEA,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT                   -- metadata documents: when to fetch again
);

-- A person's authorization of a client: one studio, one subject, scopes.
CREATE TABLE oauth_grants (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    subject      TEXT NOT NULL,             -- coa_… or trn_…
    client_id    TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scopes       TEXT NOT NULL,             -- space-separated
    resource     TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX oauth_grants_subject ON oauth_grants (studio_id, subject, created_at);

-- Authorization codes: single use, bound to the client, redirect URI,
-- PKCE challenge and resource. grant_id is the grant its first use made,
-- so a second use can revoke it.
CREATE TABLE oauth_codes (
    hash           BYTEA PRIMARY KEY,
    client_id      TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    studio_id      TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    subject        TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    resource       TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    used_at        BIGINT,
    grant_id       TEXT
);
CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);

-- Access and refresh tokens of a grant. rotated_at is when a refresh token
-- was first exchanged: it keeps working for a short grace after that.
CREATE TABLE oauth_tokens (
    hash       BYTEA PRIMARY KEY,
    grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,               -- access or refresh
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    rotated_at BIGINT
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);

-- What a person approved for a client, so the consent page is not shown
-- again for the same scopes until the person revokes the app.
CREATE TABLE oauth_consents (
    studio_id  TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    subject    TEXT NOT NULL,
    client_id  TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scopes     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (studio_id, subject, client_id)
);
