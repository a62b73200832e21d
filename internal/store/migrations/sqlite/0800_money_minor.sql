-- Prices are whole minor units of their currency (agorot, cents), never a
-- float: price_minor replaces price, rounded to the nearest minor unit.
-- The currencies without a hundredth are money.Digits's (internal/money).
-- Currencies were upper-cased on the way in; made sure of here.
UPDATE products SET currency = upper(currency);
UPDATE subscriptions SET currency = upper(currency);

ALTER TABLE products ADD COLUMN price_minor INTEGER;
UPDATE products SET price_minor = CAST(round(price * CASE
    WHEN currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 1
    WHEN currency IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') THEN 1000
    ELSE 100 END) AS INTEGER)
WHERE price IS NOT NULL;
ALTER TABLE products DROP COLUMN price;

ALTER TABLE subscriptions ADD COLUMN price_minor INTEGER;
UPDATE subscriptions SET price_minor = CAST(round(price * CASE
    WHEN currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 1
    WHEN currency IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') THEN 1000
    ELSE 100 END) AS INTEGER)
WHERE price IS NOT NULL;
ALTER TABLE subscriptions DROP COLUMN price;
