-- A trainee's consent to the WhatsApp assistant belongs to her record and
-- to the phone she gave it from: agreed_phone is that phone (phone.Key
-- form), and a yes holds only for the phone that is hers now and gave it.
-- The existing column phone is the phone of her last answer; where that
-- answer is the yes that holds (agreed after any stop), it is the phone
-- the yes came from, so it is kept as such. A yes a later stop voided
-- needs no phone: it does not hold.
ALTER TABLE agent_trainee_consents ADD COLUMN agreed_phone TEXT;
UPDATE agent_trainee_consents SET agreed_phone = phone
    WHERE agreed_at IS NOT NULL AND (stopped_at IS NULL OR agreed_at > stopped_at);
