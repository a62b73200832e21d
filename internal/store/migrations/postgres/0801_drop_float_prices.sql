-- The float prices, in minor units since 0800, are read no more.
ALTER TABLE products DROP COLUMN price;
ALTER TABLE subscriptions DROP COLUMN price;
