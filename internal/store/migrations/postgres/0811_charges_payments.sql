-- What a trainee owes and what she paid. A subscription of a package or a
-- membership plan with a price is charged once for its start and once for
-- each period a renewal adds: one charge per (subscription, period_start).
CREATE TABLE charges (
    id              TEXT PRIMARY KEY,
    studio_id       TEXT NOT NULL,
    trainee_id      TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    period_start    TEXT NOT NULL,
    period_end      TEXT,
    due_on          TEXT NOT NULL,
    amount_minor    BIGINT NOT NULL,
    currency        TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    UNIQUE (studio_id, id),
    UNIQUE (studio_id, subscription_id, period_start),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, subscription_id) REFERENCES subscriptions (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX charges_trainee ON charges (studio_id, trainee_id, due_on);
CREATE INDEX charges_due ON charges (studio_id, due_on);

-- A payment is never edited: a refund or a correction is a row of its own
-- that reverses another (reverses_id), its amount negative. source is
-- coach (recorded by hand) or processor (a webhook's event, external_id
-- its id there: one row per event).
CREATE TABLE payments (
    id           TEXT PRIMARY KEY,
    studio_id    TEXT NOT NULL,
    trainee_id   TEXT NOT NULL,
    charge_id    TEXT,
    amount_minor BIGINT NOT NULL,
    currency     TEXT NOT NULL,
    method       TEXT NOT NULL,
    paid_on      TEXT NOT NULL,
    note         TEXT,
    source       TEXT NOT NULL,
    external_id  TEXT,
    reverses_id  TEXT,
    created_at   BIGINT NOT NULL,
    UNIQUE (studio_id, id),
    UNIQUE (studio_id, source, external_id),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, charge_id) REFERENCES charges (studio_id, id),
    FOREIGN KEY (studio_id, reverses_id) REFERENCES payments (studio_id, id)
);
CREATE INDEX payments_trainee ON payments (studio_id, trainee_id, paid_on);
CREATE INDEX payments_charge ON payments (studio_id, charge_id);
CREATE INDEX payments_studio ON payments (studio_id, paid_on, id);
