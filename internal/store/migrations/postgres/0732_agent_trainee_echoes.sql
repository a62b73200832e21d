-- The writes a trainee's turns echoed to her ("✅ נרשמה שקילה …"), by the
-- tool and the lane's answer, committed with the turn's reply. A write
-- repeated within the lane's repeat window (a replayed webhook, the same
-- message sent twice) is answered from the first; when that first answer
-- was echoed already, it is not echoed again. Swept after 48 hours.
CREATE TABLE agent_trainee_echoes (
    studio_id  TEXT NOT NULL,
    trainee_id TEXT NOT NULL,
    echo_key   TEXT NOT NULL,
    echoed_at  BIGINT NOT NULL,
    PRIMARY KEY (studio_id, trainee_id, echo_key),
    FOREIGN KEY (studio_id, trainee_id) REFERENCES trainees (studio_id, id) ON DELETE CASCADE
);
CREATE INDEX agent_trainee_echoes_at ON agent_trainee_echoes (echoed_at);
