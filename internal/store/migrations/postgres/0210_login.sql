-- Browser sign-in (internal/login): a phone, a one-time code sent over
-- WhatsApp, then a session cookie. Nothing secret is kept in plain text:
-- every key below is the SHA-256 of a random value only the browser holds
-- (its sign-in cookie, its session cookie), and the code is kept as a hash.

-- Trainees are found by phone across studios (the sign-in page does not
-- know the studio); the unique (studio_id, phone) index does not serve that.
CREATE INDEX trainees_phone ON trainees (phone);

-- One pending sign-in per browser: the phone typed, the code's hash, the
-- wrong tries so far, where to go afterwards. verified_at is set once the
-- code was right and the person still has to choose a studio.
CREATE TABLE login_challenges (
    hash        BYTEA PRIMARY KEY,
    phone       TEXT NOT NULL,
    code_hash   BYTEA NOT NULL,
    tries       BIGINT NOT NULL,
    next        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    verified_at BIGINT
);
CREATE INDEX login_challenges_expires ON login_challenges (expires_at);

-- Signed-in browsers: whose session it is and until when (idle and
-- absolute limits). A session ends with its studio, coach or trainee.
CREATE TABLE browser_sessions (
    hash         BYTEA PRIMARY KEY,
    studio_id    TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    subject_id   TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX browser_sessions_subject ON browser_sessions (subject_id);
CREATE INDEX browser_sessions_expires ON browser_sessions (expires_at);

-- Fixed-window counters that throttle sign-in per phone and per client
-- address, shared by every instance.
CREATE TABLE login_counters (
    name       TEXT PRIMARY KEY,
    window_end BIGINT NOT NULL,
    count      BIGINT NOT NULL
);
CREATE INDEX login_counters_window ON login_counters (window_end);
