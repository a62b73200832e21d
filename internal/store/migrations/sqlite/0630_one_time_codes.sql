-- One-time codes (internal/otc), one table for every door that verifies a
-- phone: the browser sign-in, an agent platform's conversation. subject_key
-- is the SHA-256 of the door's purpose and its subject (a browser's
-- sign-in, a conversation), so neither is kept; code_hash is the code's
-- SHA-256 bound to that key. data is what the door bound to the code (the
-- phone typed, the trainee id) and gets back from a right code. tries
-- counts every code tried, in the same statement that reads the row, before
-- the code is compared.
CREATE TABLE one_time_codes (
    subject_key BLOB PRIMARY KEY,
    code_hash   BLOB NOT NULL,
    data        TEXT NOT NULL,
    tries       INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX one_time_codes_expires ON one_time_codes (expires_at);
