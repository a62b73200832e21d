-- The date of each trainee's latest completed session, kept on the
-- trainee's row: the roster triage reads it with the roster instead of
-- seeking it a trainee (the seeks were the triage's largest query).
--
-- The triggers are the one place the rule lives, so every write path is
-- covered (logging, completing, moving or reopening a session, deleting
-- it, withdrawing it, and any path added later), in the same transaction
-- as the write. An insert moves the date only forward; an update or a
-- delete of a completed session reads the trainee's latest again (one
-- seek into sessions_logged).
ALTER TABLE trainees ADD COLUMN last_completed_on TEXT;

UPDATE trainees SET last_completed_on = (SELECT max(s.date) FROM sessions s
    WHERE s.studio_id = trainees.studio_id AND s.trainee_id = trainees.id AND s.status = 'completed');

CREATE TRIGGER sessions_last_completed_insert AFTER INSERT ON sessions WHEN NEW.status = 'completed' BEGIN
    UPDATE trainees SET last_completed_on = NEW.date
    WHERE studio_id = NEW.studio_id AND id = NEW.trainee_id AND (last_completed_on IS NULL OR last_completed_on < NEW.date);
END;
-- Both the trainee the session was of and the one it is of now (the same
-- one but for a move).
CREATE TRIGGER sessions_last_completed_update AFTER UPDATE OF studio_id, trainee_id, date, status ON sessions
    WHEN OLD.status = 'completed' OR NEW.status = 'completed' BEGIN
    UPDATE trainees SET last_completed_on = (SELECT max(s.date) FROM sessions s
        WHERE s.studio_id = OLD.studio_id AND s.trainee_id = OLD.trainee_id AND s.status = 'completed')
    WHERE studio_id = OLD.studio_id AND id = OLD.trainee_id;
    UPDATE trainees SET last_completed_on = (SELECT max(s.date) FROM sessions s
        WHERE s.studio_id = NEW.studio_id AND s.trainee_id = NEW.trainee_id AND s.status = 'completed')
    WHERE studio_id = NEW.studio_id AND id = NEW.trainee_id;
END;
CREATE TRIGGER sessions_last_completed_delete AFTER DELETE ON sessions WHEN OLD.status = 'completed' BEGIN
    UPDATE trainees SET last_completed_on = (SELECT max(s.date) FROM sessions s
        WHERE s.studio_id = OLD.studio_id AND s.trainee_id = OLD.trainee_id AND s.status = 'completed')
    WHERE studio_id = OLD.studio_id AND id = OLD.trainee_id;
END;
