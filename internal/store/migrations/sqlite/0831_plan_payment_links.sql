-- A studio's payment link per plan (internal/areas/payhook): the page of
-- its processor where a trainee pays for the plan (a Stripe Payment Link),
-- which the drafted payment reminder carries with her id, so the payment's
-- event names her. Instants are unix milliseconds.
CREATE TABLE plan_payment_links (
    product_id TEXT PRIMARY KEY REFERENCES products (id) ON DELETE CASCADE,
    studio_id  TEXT NOT NULL REFERENCES studios (id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX plan_payment_links_studio ON plan_payment_links (studio_id, product_id);
