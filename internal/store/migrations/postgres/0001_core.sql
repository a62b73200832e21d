CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Perform's core tables on Postgres. Instants are unix milliseconds (BIGINT),
-- dates are 'YYYY-MM-DD' TEXT, JSON is TEXT (kept byte for byte).
-- Child rows reference their parent by (studio_id, id), so a row can never
-- point at another studio's data, and deleting a trainee cascades.

CREATE TABLE studios (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    slug       TEXT NOT NULL UNIQUE,
    region     TEXT NOT NULL,
    tier       TEXT NOT NULL,
    settings   TEXT,
    created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    hash         BYTEA NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX api_keys_studio ON api_keys (studio_id, created_at);
CREATE INDEX api_keys_prefix ON api_keys (prefix);

CREATE TABLE coaches (
    id             TEXT PRIMARY KEY,
    studio_id      TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    phone          TEXT,
    email          TEXT,
    active         BOOLEAN NOT NULL,
    last_active_at BIGINT,
    created_at     BIGINT NOT NULL,
    UNIQUE (studio_id, id)
);
CREATE INDEX coaches_studio_name ON coaches (studio_id, name, id);
CREATE INDEX coaches_phone ON coaches (phone) WHERE phone IS NOT NULL;

CREATE TABLE tags (
    id         TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (studio_id, name),
    UNIQUE (studio_id, id)
);

CREATE TABLE trainees (
    id             TEXT PRIMARY KEY,
    studio_id      TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    first_name     TEXT NOT NULL,
    last_name      TEXT NOT NULL,
    phone          TEXT NOT NULL,
    email          TEXT,
    birth_date     TEXT,
    gender         TEXT,
    height_cm      DOUBLE PRECISION,
    weight_kg      DOUBLE PRECISION,
    goal           TEXT,
    steps_goal     INTEGER,
    status         TEXT NOT NULL,
    started_on     TEXT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    -- lower-cased "first last", phone digits, national digits and email,
    -- written by the store; the pg_trgm GIN index below serves substring search.
    search_doc     TEXT NOT NULL,
    UNIQUE (studio_id, phone),
    UNIQUE (studio_id, id)
);
CREATE INDEX trainees_studio_order ON trainees (studio_id, last_name, first_name, id);
CREATE INDEX trainees_studio_status ON trainees (studio_id, status, last_name, first_name, id);
CREATE INDEX trainees_studio_created ON trainees (studio_id, created_at);
CREATE INDEX trainees_studio_updated ON trainees (studio_id, updated_at);

-- fastupdate off: searches never scan a pending list that bulk inserts
-- left behind; trainee writes are rare enough to update the index in place.
CREATE INDEX trainees_search ON trainees USING gin (search_doc gin_trgm_ops) WITH (fastupdate = off);

CREATE TABLE trainee_tags (
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    tag_id     TEXT NOT NULL,
    PRIMARY KEY (trainee_id, tag_id),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, tag_id) REFERENCES tags (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX trainee_tags_tag ON trainee_tags (studio_id, tag_id, trainee_id);

CREATE TABLE trainee_coaches (
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    coach_id   TEXT NOT NULL,
    PRIMARY KEY (trainee_id, coach_id),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, coach_id) REFERENCES coaches (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX trainee_coaches_coach ON trainee_coaches (studio_id, coach_id, trainee_id);

CREATE TABLE products (
    id            TEXT PRIMARY KEY,
    studio_id     TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    price         DOUBLE PRECISION,
    currency      TEXT NOT NULL,
    duration_days INTEGER,
    active        BOOLEAN NOT NULL,
    created_at    BIGINT NOT NULL,
    UNIQUE (studio_id, id)
);
CREATE INDEX products_studio_name ON products (studio_id, name, id);

CREATE TABLE subscriptions (
    id         TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    product_id TEXT NOT NULL,
    started_on TEXT NOT NULL,
    ends_on    TEXT,
    price      DOUBLE PRECISION,
    currency   TEXT NOT NULL,
    state      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, product_id) REFERENCES products (studio_id, id)
);
CREATE INDEX subscriptions_trainee ON subscriptions (studio_id, trainee_id, started_on);
CREATE INDEX subscriptions_product ON subscriptions (studio_id, product_id);

CREATE TABLE program_templates (
    id          TEXT PRIMARY KEY,
    studio_id   TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT,
    weeks       INTEGER,
    created_at  BIGINT NOT NULL,
    UNIQUE (studio_id, id)
);
CREATE INDEX program_templates_studio_name ON program_templates (studio_id, name, id);

CREATE TABLE programs (
    id          TEXT PRIMARY KEY,
    studio_id   TEXT NOT NULL,
    trainee_id  TEXT NOT NULL,
    template_id TEXT NOT NULL,
    name        TEXT NOT NULL,
    starts_on   TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, template_id) REFERENCES program_templates (studio_id, id)
);
CREATE INDEX programs_trainee ON programs (studio_id, trainee_id, starts_on);
CREATE INDEX programs_template ON programs (studio_id, template_id);

CREATE TABLE form_templates (
    id          TEXT PRIMARY KEY,
    studio_id   TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT,
    fields      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (studio_id, id)
);
CREATE INDEX form_templates_studio_name ON form_templates (studio_id, name, id);

CREATE TABLE form_assignments (
    id               TEXT PRIMARY KEY,
    studio_id        TEXT NOT NULL,
    trainee_id       TEXT NOT NULL,
    form_template_id TEXT NOT NULL,
    due_at           BIGINT,
    prompt           TEXT,
    notify           BOOLEAN,
    field_values     TEXT,
    status           TEXT NOT NULL,
    announced_at     BIGINT,
    created_at       BIGINT NOT NULL,
    UNIQUE (studio_id, id),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, form_template_id) REFERENCES form_templates (studio_id, id)
);
CREATE INDEX form_assignments_trainee ON form_assignments (studio_id, trainee_id, created_at);
CREATE INDEX form_assignments_template ON form_assignments (studio_id, form_template_id);
-- The periodic announcer reads only the few assignments still waiting.
CREATE INDEX form_assignments_due ON form_assignments (created_at, id)
    WHERE notify IS NULL AND announced_at IS NULL;

CREATE TABLE form_responses (
    id               TEXT PRIMARY KEY,
    studio_id        TEXT NOT NULL,
    trainee_id       TEXT NOT NULL,
    form_template_id TEXT NOT NULL,
    assignment_id    TEXT,
    answers          TEXT NOT NULL,
    submitted_at     BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, form_template_id) REFERENCES form_templates (studio_id, id),
    FOREIGN KEY (studio_id, assignment_id) REFERENCES form_assignments (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX form_responses_trainee ON form_responses (studio_id, trainee_id, submitted_at);
CREATE INDEX form_responses_template ON form_responses (studio_id, form_template_id);
CREATE INDEX form_responses_assignment ON form_responses (studio_id, assignment_id);

CREATE TABLE weights (
    id          TEXT PRIMARY KEY,
    studio_id   TEXT NOT NULL,
    trainee_id  TEXT NOT NULL,
    weight_kg   DOUBLE PRECISION NOT NULL,
    recorded_at BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX weights_trainee ON weights (studio_id, trainee_id, recorded_at);

CREATE TABLE tasks (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    title        TEXT NOT NULL,
    client_id    TEXT,
    detail       TEXT,
    due_at       BIGINT,
    priority     INTEGER NOT NULL,
    coach_id     TEXT,
    status       TEXT NOT NULL,
    snooze_until BIGINT,
    source       TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    FOREIGN KEY (studio_id, client_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, coach_id) REFERENCES coaches (studio_id, id)
);
CREATE INDEX tasks_studio ON tasks (studio_id, status, created_at);
CREATE INDEX tasks_client ON tasks (studio_id, client_id);
CREATE INDEX tasks_coach ON tasks (studio_id, coach_id);

-- The audit trail and the outbox are records of what happened, so they keep
-- no foreign keys: they outlive the rows they mention.
CREATE TABLE audit_events (
    id            TEXT PRIMARY KEY,
    studio_id     TEXT NOT NULL,
    credential_id TEXT NOT NULL,
    method        TEXT NOT NULL,
    route         TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    status        INTEGER NOT NULL,
    duration_ms   DOUBLE PRECISION NOT NULL,
    request_id    TEXT NOT NULL,
    source        TEXT NOT NULL,
    at            BIGINT NOT NULL
);
CREATE INDEX audit_events_studio ON audit_events (studio_id, at, id);

CREATE TABLE notifications (
    id         TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    source     TEXT NOT NULL,
    payload    TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX notifications_studio ON notifications (studio_id, created_at, id);
CREATE INDEX notifications_trainee ON notifications (studio_id, trainee_id);
