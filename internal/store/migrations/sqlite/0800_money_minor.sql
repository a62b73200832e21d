-- Prices are whole minor units of their currency (agorot, cents), never a
-- float: price_minor takes each price, rounded to the nearest minor unit,
-- in Go (convertPricesToMinor: the currency's decimals are money.Digits's);
-- 0801 drops the float column. Currencies were upper-cased on the way in;
-- made sure of here.
UPDATE products SET currency = upper(currency);
UPDATE subscriptions SET currency = upper(currency);
ALTER TABLE products ADD COLUMN price_minor INTEGER;
ALTER TABLE subscriptions ADD COLUMN price_minor INTEGER;
