-- A reply turn claims the oldest pending messages that fit its bounds
-- (internal/agent: a count and a total size); the rest wait for the next
-- turn, which is scheduled with the claim.
--
-- cut: the turn's one message was longer than a turn reads, so the turn's
-- text is its beginning (the message is kept whole in agent_messages) and
-- the sender is told.
ALTER TABLE agent_turns ADD COLUMN cut SMALLINT NOT NULL DEFAULT 0;
-- solo: the message went back to pending from a turn that ran out of model
-- steps; it is claimed alone, so each such message gets a turn of its own.
ALTER TABLE agent_messages ADD COLUMN solo SMALLINT NOT NULL DEFAULT 0;
