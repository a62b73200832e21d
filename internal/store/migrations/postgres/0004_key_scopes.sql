-- What each studio key may do: scopes separated by spaces (OAuth's form).
-- Keys made before scopes existed keep everything they could do.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'studio:read studio:write studio:admin';
