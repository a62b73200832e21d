-- The sound keys of each trainee's name (translit.NameKeys), so a search
-- in one script finds a name written in the other ("Tamar" finds תמר)
-- through one index. The store writes them with the trainee; migrate
-- backfills them (see goMigrations).
CREATE TABLE trainee_name_keys (
    studio_id   TEXT NOT NULL,
    name_key    TEXT NOT NULL,
    trainee_seq INTEGER NOT NULL REFERENCES trainees (seq) ON DELETE CASCADE,
    PRIMARY KEY (studio_id, name_key, trainee_seq)
) WITHOUT ROWID;
CREATE INDEX trainee_name_keys_trainee ON trainee_name_keys (trainee_seq);
