-- The trigrams of each trainee's name (store.Trigrams), so near matches
-- pick their candidates by shared trigrams through one index, the same
-- rows as on SQLite. Search documents now hold the name's words (hyphens
-- read as spaces, white space collapsed). The store writes both with the
-- trainee; migrate backfills them (see goMigrations).
CREATE TABLE trainee_trigrams (
    studio_id   TEXT NOT NULL,
    trigram     TEXT COLLATE "C" NOT NULL,
    trainee_seq BIGINT NOT NULL REFERENCES trainees (seq) ON DELETE CASCADE,
    PRIMARY KEY (studio_id, trigram, trainee_seq)
);
CREATE INDEX trainee_trigrams_trainee ON trainee_trigrams (trainee_seq);
