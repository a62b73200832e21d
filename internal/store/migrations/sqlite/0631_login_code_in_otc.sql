-- A browser's pending sign-in keeps its code in one_time_codes now (the
-- one-time-code component, internal/otc); a sign-in pending across this
-- change asks for a new code.
ALTER TABLE login_challenges DROP COLUMN code_hash;
ALTER TABLE login_challenges DROP COLUMN tries;
