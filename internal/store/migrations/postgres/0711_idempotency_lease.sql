-- A claimed Idempotency-Key is held while its request lives: the request
-- renews held_until (unix ms) as it runs, and only a claim past it (its
-- process died) is taken over, however long a live write takes. A claim
-- from before the lease was kept holds for the minute it always had.
ALTER TABLE idempotency_keys ADD COLUMN held_until BIGINT NOT NULL DEFAULT 0;
UPDATE idempotency_keys SET held_until = created_at + 60000 WHERE status = 0;
