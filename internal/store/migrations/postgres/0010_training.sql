-- The training memory (see internal/store/training.go). Instants are unix
-- milliseconds, dates are the trainee's local 'YYYY-MM-DD', lists and nested
-- records (a session's exercises and sets, a template's structure) are JSON
-- TEXT read whole with their row.

ALTER TABLE program_templates ADD COLUMN structure TEXT;

-- A studio's own exercises; Perform's catalogue is data in the binary.
CREATE TABLE exercises (
    id         TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL, -- lower-cased name: one exercise per name
    data       TEXT NOT NULL, -- the rest of domain.Exercise as JSON
    created_at BIGINT NOT NULL,
    UNIQUE (studio_id, name_key)
);

CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL,
    trainee_id   TEXT NOT NULL,
    program_id   TEXT, -- the program that laid it out (no key: programs are never deleted alone)
    date         TEXT NOT NULL,
    start_time   TEXT,
    sport        TEXT NOT NULL,
    title        TEXT NOT NULL,
    status       TEXT NOT NULL,
    source       TEXT NOT NULL,
    duration_min INTEGER,
    rpe          INTEGER,
    notes        TEXT,
    feedback     TEXT,
    exercises    TEXT NOT NULL,
    volume_kg    DOUBLE PRECISION NOT NULL,
    sets         INTEGER NOT NULL,
    reps         INTEGER NOT NULL,
    seconds      INTEGER NOT NULL,
    metres       DOUBLE PRECISION NOT NULL,
    completed_at BIGINT,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX sessions_trainee_date ON sessions (studio_id, trainee_id, date);
CREATE INDEX sessions_program ON sessions (program_id, date) WHERE program_id IS NOT NULL;
-- Logging is idempotent by the workout itself: one completed session per
-- trainee, date, sport and duration.
CREATE UNIQUE INDEX sessions_logged ON sessions (studio_id, trainee_id, date, sport, coalesce(duration_min, -1))
    WHERE status = 'completed';

CREATE TABLE benchmarks (
    id          TEXT PRIMARY KEY,
    studio_id   TEXT NOT NULL,
    trainee_id  TEXT NOT NULL,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL,
    exercise_id TEXT,
    unit        TEXT NOT NULL,
    direction   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (studio_id, id),
    UNIQUE (studio_id, trainee_id, name_key),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX benchmarks_exercise ON benchmarks (studio_id, trainee_id, exercise_id) WHERE exercise_id IS NOT NULL;

CREATE TABLE benchmark_entries (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL,
    benchmark_id TEXT NOT NULL,
    value        DOUBLE PRECISION NOT NULL,
    recorded_at  BIGINT NOT NULL,
    source       TEXT NOT NULL,
    session_id   TEXT,
    notes        TEXT,
    FOREIGN KEY (studio_id, benchmark_id) REFERENCES benchmarks (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX benchmark_entries_benchmark ON benchmark_entries (studio_id, benchmark_id, recorded_at);

CREATE TABLE measurements (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL,
    trainee_id   TEXT NOT NULL,
    recorded_at  BIGINT NOT NULL,
    body_fat_pct DOUBLE PRECISION,
    waist_cm     DOUBLE PRECISION,
    hips_cm      DOUBLE PRECISION,
    chest_cm     DOUBLE PRECISION,
    arm_cm       DOUBLE PRECISION,
    thigh_cm     DOUBLE PRECISION,
    resting_hr   INTEGER,
    notes        TEXT,
    created_at   BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX measurements_trainee ON measurements (studio_id, trainee_id, recorded_at);

CREATE TABLE checkins (
    id            TEXT PRIMARY KEY,
    studio_id     TEXT NOT NULL,
    trainee_id    TEXT NOT NULL,
    day           TEXT NOT NULL,
    readiness     INTEGER,
    soreness      INTEGER,
    sore_areas    TEXT NOT NULL,
    sleep_hours   DOUBLE PRECISION,
    sleep_quality INTEGER,
    mood          INTEGER,
    stress        INTEGER,
    note          TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    UNIQUE (studio_id, trainee_id, day),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);

CREATE TABLE injuries (
    id                 TEXT PRIMARY KEY,
    studio_id          TEXT NOT NULL,
    trainee_id         TEXT NOT NULL,
    area               TEXT NOT NULL,
    side               TEXT NOT NULL,
    severity           INTEGER NOT NULL,
    status             TEXT NOT NULL,
    onset_on           TEXT NOT NULL,
    resolved_on        TEXT,
    affected_exercises TEXT NOT NULL,
    notes              TEXT,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX injuries_trainee ON injuries (studio_id, trainee_id, status);

CREATE TABLE goals (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL,
    trainee_id   TEXT NOT NULL,
    title        TEXT NOT NULL,
    kind         TEXT NOT NULL,
    benchmark_id TEXT,
    measure      TEXT,
    target_value DOUBLE PRECISION,
    unit         TEXT,
    target_date  TEXT,
    status       TEXT NOT NULL,
    completed_at BIGINT,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX goals_trainee ON goals (studio_id, trainee_id, status);

CREATE TABLE training_profiles (
    studio_id       TEXT NOT NULL,
    trainee_id      TEXT NOT NULL,
    equipment       TEXT NOT NULL,
    availability    TEXT NOT NULL,
    session_minutes INTEGER,
    experience      TEXT,
    units           TEXT NOT NULL,
    onboarding      TEXT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (studio_id, trainee_id),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
