-- Who an agent platform said the end user was on a call through a
-- platform key (conversation id, tenant, channel, the claimed name, phone,
-- email, external id, attributes), as JSON: claims, recorded, never proof.
ALTER TABLE audit_events ADD COLUMN conversation TEXT;
