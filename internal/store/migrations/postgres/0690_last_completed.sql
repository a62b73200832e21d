-- The date of each trainee's latest completed session, kept on the
-- trainee's row: the roster triage reads it with the roster instead of
-- finding it among every session of the studio (the range and the seeks
-- it took were the triage's largest query).
--
-- The triggers are the one place the rule lives, so every write path is
-- covered (logging, completing, moving or reopening a session, deleting
-- it, withdrawing it, and any path added later), in the same transaction
-- as the write. Per statement: a bulk insert moves each trainee once.
-- An insert moves the date only forward; an update or a delete of a
-- completed session reads the trainee's latest again (one seek into
-- sessions_logged) and writes it only when it changed.
ALTER TABLE trainees ADD COLUMN last_completed_on TEXT;

UPDATE trainees t SET last_completed_on = s.last
FROM (SELECT studio_id, trainee_id, max(date) AS last FROM sessions WHERE status = 'completed' GROUP BY studio_id, trainee_id) s
WHERE t.studio_id = s.studio_id AND t.id = s.trainee_id;

CREATE FUNCTION trainees_last_completed_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE trainees t SET last_completed_on = n.last
    FROM (SELECT studio_id, trainee_id, max(date) AS last FROM new_rows WHERE status = 'completed' GROUP BY studio_id, trainee_id) n
    WHERE t.studio_id = n.studio_id AND t.id = n.trainee_id AND (t.last_completed_on IS NULL OR t.last_completed_on < n.last);
    RETURN NULL;
END
$$;

CREATE FUNCTION trainees_last_completed_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE trainees t SET last_completed_on = c.last
    FROM (SELECT o.studio_id, o.trainee_id, (SELECT max(s.date) FROM sessions s
            WHERE s.studio_id = o.studio_id AND s.trainee_id = o.trainee_id AND s.status = 'completed') AS last
        FROM (SELECT studio_id, trainee_id FROM old_rows WHERE status = 'completed'
            UNION SELECT studio_id, trainee_id FROM new_rows WHERE status = 'completed') o) c
    WHERE t.studio_id = c.studio_id AND t.id = c.trainee_id AND t.last_completed_on IS DISTINCT FROM c.last;
    RETURN NULL;
END
$$;

CREATE FUNCTION trainees_last_completed_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE trainees t SET last_completed_on = c.last
    FROM (SELECT o.studio_id, o.trainee_id, (SELECT max(s.date) FROM sessions s
            WHERE s.studio_id = o.studio_id AND s.trainee_id = o.trainee_id AND s.status = 'completed') AS last
        FROM (SELECT DISTINCT studio_id, trainee_id FROM old_rows WHERE status = 'completed') o) c
    WHERE t.studio_id = c.studio_id AND t.id = c.trainee_id AND t.last_completed_on IS DISTINCT FROM c.last;
    RETURN NULL;
END
$$;

CREATE TRIGGER sessions_last_completed_insert AFTER INSERT ON sessions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION trainees_last_completed_insert();
CREATE TRIGGER sessions_last_completed_update AFTER UPDATE ON sessions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION trainees_last_completed_update();
CREATE TRIGGER sessions_last_completed_delete AFTER DELETE ON sessions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION trainees_last_completed_delete();
