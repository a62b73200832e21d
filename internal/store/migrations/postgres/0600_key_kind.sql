-- What each studio key is: studio_key (the studio's own integrations) or
-- platform_key (an agent platform answering the studio's customers, which
-- reaches only the studio's public offer). Existing keys are studio keys.
ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'studio_key';
