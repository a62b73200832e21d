-- The sweep deletes registered clients no grant ever used (and expired
-- metadata documents no grant uses) a day on: it finds them by source and
-- age, and asks the grants and codes for each by client.
CREATE INDEX oauth_clients_source_created ON oauth_clients (source, created_at);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
CREATE INDEX oauth_codes_client ON oauth_codes (client_id);
