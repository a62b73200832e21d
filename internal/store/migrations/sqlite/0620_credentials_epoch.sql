-- The credentials epoch: one counter that every change to what a studio
-- key's principal is made of moves forward, in the same transaction as the
-- change. A process may keep principals in memory as long as the epoch it
-- read them at is still the current one: one tiny read per request instead
-- of the key-and-studio join, and a key revoked by any process (the CLI,
-- the lane, the studio's pages) is refused on the very next request.
--
-- The triggers are the one place the rule lives, so every write path is
-- covered. Not listed: last_used_at (written once a minute per key) and
-- created_at, which no principal holds. A new key needs no bump: a cache
-- never keeps an unknown key.
CREATE TABLE credentials_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO credentials_epoch (id, n) VALUES (1, 0);

CREATE TRIGGER api_keys_epoch_update AFTER UPDATE OF studio_id, name, prefix, hash, revoked_at, scopes, kind ON api_keys BEGIN
    UPDATE credentials_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER api_keys_epoch_delete AFTER DELETE ON api_keys BEGIN
    UPDATE credentials_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER studios_epoch_update AFTER UPDATE OF id, name, slug, region, tier, settings ON studios BEGIN
    UPDATE credentials_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER studios_epoch_delete AFTER DELETE ON studios BEGIN
    UPDATE credentials_epoch SET n = n + 1 WHERE id = 1;
END;
