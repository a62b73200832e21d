-- What the weekly plan reads beside an injury's area and severity: its kind
-- (domain.InjuryKinds; '' is pain without a diagnosis), and the training
-- profile's sport, goal and health conditions (a JSON list of
-- domain.HealthConditions codes: health data, read under the health scopes).
ALTER TABLE injuries ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE training_profiles ADD COLUMN sport TEXT NOT NULL DEFAULT '';
ALTER TABLE training_profiles ADD COLUMN goal TEXT NOT NULL DEFAULT '';
ALTER TABLE training_profiles ADD COLUMN conditions TEXT NOT NULL DEFAULT '[]';

-- A draft now keeps the fingerprint of what the rules read (a pending draft
-- is answered again only while it is the same), a status superseded (a
-- newer draft of the week replaced it, superseded_reason says why), where
-- the model's refinement stands (pending, done, failed, skipped; note says
-- why), and the coaches' task about the week (one per trainee and week).
ALTER TABLE plan_drafts DROP CONSTRAINT plan_drafts_status_check;
ALTER TABLE plan_drafts ADD CONSTRAINT plan_drafts_status_check CHECK (status IN ('pending', 'applied', 'superseded'));
ALTER TABLE plan_drafts ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
ALTER TABLE plan_drafts ADD COLUMN superseded_reason TEXT;
ALTER TABLE plan_drafts ADD COLUMN refinement TEXT NOT NULL DEFAULT 'skipped' CHECK (refinement IN ('pending', 'done', 'failed', 'skipped'));
ALTER TABLE plan_drafts ADD COLUMN refinement_note TEXT;
ALTER TABLE plan_drafts ADD COLUMN task_ids TEXT;
