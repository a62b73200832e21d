-- The low check-ins (readiness 4 or lower) by day: the roster triage
-- looks for three of them in the last four days of a whole studio, and
-- the low-readiness roster question for them in a window; both read this
-- small index instead of every check-in of those days. Readiness is a
-- column too, so the index covers both (SQLite counts a partial index
-- covering only when the columns of its condition are in it).
CREATE INDEX checkins_low ON checkins (studio_id, day, trainee_id, readiness) WHERE readiness <= 4;
