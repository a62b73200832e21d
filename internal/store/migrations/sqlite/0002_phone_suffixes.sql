-- Every suffix of each trainee's phone digits (E.164 and national form) and
-- of the digit runs in their name and email, so a search for digits is a
-- prefix range on one B-tree: it costs
-- the same at 100k trainees as at 1k, where trigrams of digits shared by
-- every number ("972", "050") grow with the table. The store writes the
-- rows with the trainee; migrate backfills them (see goMigrations).
CREATE TABLE trainee_phone_suffixes (
    studio_id   TEXT NOT NULL,
    suffix      TEXT NOT NULL,
    trainee_seq INTEGER NOT NULL REFERENCES trainees (seq) ON DELETE CASCADE,
    PRIMARY KEY (studio_id, suffix, trainee_seq)
) WITHOUT ROWID;
CREATE INDEX trainee_phone_suffixes_trainee ON trainee_phone_suffixes (trainee_seq);
