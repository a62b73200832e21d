-- Who logged each record a trainee may withdraw soon after logging it
-- (store.WithdrawRecord): 'trainee' (her own log, on any of her surfaces),
-- 'coach' (the studio: a coach, a studio key, the assistant for a coach).
-- A record written before this was kept is nobody's to withdraw ('');
-- sessions already say it in their source.
ALTER TABLE weights ADD COLUMN logged_by TEXT NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN logged_by TEXT NOT NULL DEFAULT '';
ALTER TABLE checkins ADD COLUMN logged_by TEXT NOT NULL DEFAULT '';
ALTER TABLE form_responses ADD COLUMN logged_by TEXT NOT NULL DEFAULT '';
-- A check-in a second one of its day updated is no longer one log to take
-- back: said outright, not read from updated_at differing from created_at.
ALTER TABLE checkins ADD COLUMN revised BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE checkins SET revised = TRUE WHERE updated_at <> created_at;
