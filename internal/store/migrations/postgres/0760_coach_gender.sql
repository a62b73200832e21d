-- A coach's gender (female, male or other; NULL when not given), as a
-- trainee has: the pages she reads address her as מאמנת or him as מאמן.
ALTER TABLE coaches ADD COLUMN gender TEXT;
