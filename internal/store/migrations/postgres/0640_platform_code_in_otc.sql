-- An agent platform's verification keeps its code in one_time_codes now
-- (the one-time-code component, internal/otc, which counts every try in
-- the statement that reads the code); a verification pending across this
-- change asks for a new code.
ALTER TABLE platform_conversations DROP COLUMN code_hash;
ALTER TABLE platform_conversations DROP COLUMN tries;
ALTER TABLE platform_conversations DROP COLUMN code_expires_at;
