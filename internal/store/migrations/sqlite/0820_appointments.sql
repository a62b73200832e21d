-- Appointments: the calendar's own noun, apart from training sessions
-- (internal/areas/appointments). Instants are unix milliseconds (UTC);
-- working hours are minutes of the studio's local day.

-- A coach's working hours: per weekday (0 Sunday … 6 Saturday), ranges of
-- minutes of the local day. A coach with no row has no hours set.
CREATE TABLE coach_hours (
    studio_id  TEXT NOT NULL,
    coach_id   TEXT NOT NULL,
    weekday    INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    starts_min INTEGER NOT NULL CHECK (starts_min BETWEEN 0 AND 1439),
    ends_min   INTEGER NOT NULL CHECK (ends_min BETWEEN 1 AND 1440),
    PRIMARY KEY (studio_id, coach_id, weekday, starts_min),
    CHECK (ends_min > starts_min),
    FOREIGN KEY (studio_id, coach_id) REFERENCES coaches (studio_id, id) ON DELETE CASCADE
);

-- A coach's slot: a time, a length, a place and how many it takes
-- (capacity 1 is one-to-one). One coach's slots never overlap (the store
-- checks under the coach's lock).
CREATE TABLE appointment_slots (
    id         TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL,
    coach_id   TEXT NOT NULL,
    starts_at  INTEGER NOT NULL,
    ends_at    INTEGER NOT NULL,
    length_min INTEGER NOT NULL CHECK (length_min BETWEEN 5 AND 480),
    place      TEXT NOT NULL DEFAULT '',
    capacity   INTEGER NOT NULL CHECK (capacity BETWEEN 1 AND 50),
    created_at INTEGER NOT NULL,
    UNIQUE (studio_id, id),
    CHECK (ends_at > starts_at),
    FOREIGN KEY (studio_id, coach_id) REFERENCES coaches (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX appointment_slots_coach ON appointment_slots (studio_id, coach_id, starts_at);
CREATE INDEX appointment_slots_starts ON appointment_slots (studio_id, starts_at);

-- A trainee's place in a slot. coach_id, starts_at and ends_at are the
-- slot's, kept here so a trainee's overlap and a coach's day are one index
-- read. position orders the waiting list (waitlisted only). session_id is
-- the training session logged for an attended appointment.
CREATE TABLE appointments (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL,
    slot_id      TEXT NOT NULL,
    trainee_id   TEXT NOT NULL,
    coach_id     TEXT NOT NULL,
    starts_at    INTEGER NOT NULL,
    ends_at      INTEGER NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('booked', 'cancelled', 'late_cancelled', 'attended', 'no_show', 'waitlisted')),
    position     INTEGER,
    session_id   TEXT,
    booked_by    TEXT NOT NULL CHECK (booked_by IN ('coach', 'trainee')),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    cancelled_at INTEGER,
    UNIQUE (studio_id, id),
    FOREIGN KEY (studio_id, slot_id) REFERENCES appointment_slots (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
-- One live place per trainee and slot.
CREATE UNIQUE INDEX appointments_live ON appointments (studio_id, slot_id, trainee_id) WHERE status IN ('booked', 'waitlisted');
CREATE INDEX appointments_trainee ON appointments (studio_id, trainee_id, starts_at);
CREATE INDEX appointments_slot ON appointments (studio_id, slot_id, status, position);
CREATE INDEX appointments_starts ON appointments (studio_id, starts_at);

-- A coach's calendar feed: only the SHA-256 of its URL token is kept.
CREATE TABLE coach_feeds (
    coach_id   TEXT PRIMARY KEY,
    studio_id  TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    FOREIGN KEY (studio_id, coach_id) REFERENCES coaches (studio_id, id) ON DELETE CASCADE
);
