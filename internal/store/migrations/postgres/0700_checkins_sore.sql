-- The sore check-ins (soreness 6 or more) by day: the soreness roster
-- question reads this small index for a window of a whole studio instead
-- of every check-in of those days (without it PostgreSQL chose a scan of
-- the whole table, 77 ms at 5,000 trainees). Soreness is a column too, so
-- the index covers the question's own reads (SQLite counts a partial
-- index covering only when the columns of its condition are in it).
CREATE INDEX checkins_sore ON checkins (studio_id, day, trainee_id, soreness) WHERE soreness >= 6;
