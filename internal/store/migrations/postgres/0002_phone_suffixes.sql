-- Every suffix of each trainee's phone digits (E.164 and national form) and
-- of the digit runs in their name and email, so a search for digits is a
-- prefix range on one B-tree (see the
-- SQLite migration). seq gives trainees the same compact key as on SQLite.
ALTER TABLE trainees ADD COLUMN seq BIGINT GENERATED ALWAYS AS IDENTITY;
ALTER TABLE trainees ADD CONSTRAINT trainees_seq_key UNIQUE (seq);
CREATE TABLE trainee_phone_suffixes (
    studio_id   TEXT NOT NULL,
    suffix      TEXT COLLATE "C" NOT NULL,
    trainee_seq BIGINT NOT NULL REFERENCES trainees (seq) ON DELETE CASCADE,
    PRIMARY KEY (studio_id, suffix, trainee_seq)
);
CREATE INDEX trainee_phone_suffixes_trainee ON trainee_phone_suffixes (trainee_seq);
