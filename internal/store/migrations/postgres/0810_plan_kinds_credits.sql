-- A plan is a session package, a membership or other (every plan before
-- this one): a package holds `sessions` in all, valid `valid_days` from its
-- subscription's start (NULL: no expiry); a membership holds `sessions` a
-- week (NULL: unlimited) for a `period` (week or month) that renews while
-- `auto_renew` holds and the studio has not turned renewals off.
ALTER TABLE products ADD COLUMN kind TEXT NOT NULL DEFAULT 'other';
ALTER TABLE products ADD COLUMN sessions INTEGER;
ALTER TABLE products ADD COLUMN valid_days INTEGER;
ALTER TABLE products ADD COLUMN period TEXT;
ALTER TABLE products ADD COLUMN auto_renew BOOLEAN NOT NULL DEFAULT TRUE;

-- Rows that belong to a subscription name it by (studio_id, id).
CREATE UNIQUE INDEX subscriptions_studio_id ON subscriptions (studio_id, id);

-- The credit ledger: one row per session a subscription paid for, used by
-- an appointment (or by hand: appointment_id NULL) on used_on, the day in
-- the studio's zone. A release (a cancellation in time) sets released_at
-- and gives the credit back; rows are never deleted by the ledger.
CREATE TABLE credit_uses (
    id              TEXT PRIMARY KEY,
    studio_id       TEXT NOT NULL,
    trainee_id      TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    appointment_id  TEXT,
    used_on         TEXT NOT NULL,
    used_at         BIGINT NOT NULL,
    released_at     BIGINT,
    UNIQUE (studio_id, appointment_id),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE,
    FOREIGN KEY (studio_id, subscription_id) REFERENCES subscriptions (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX credit_uses_subscription ON credit_uses (studio_id, subscription_id, used_on);
CREATE INDEX credit_uses_trainee ON credit_uses (studio_id, trainee_id, used_on);
