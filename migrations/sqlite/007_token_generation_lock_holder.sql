-- A user's WOPI access tokens carry the user's token generation; a password change, a
-- withdrawn admin right or a removed user bumps it (or removes the row), so every token
-- issued before stops working at once, on every instance.
ALTER TABLE users ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;

-- Who took a file's WOPI lock and when, so the owner and admins can see a lock left
-- behind by a closed browser and release it. NULL for locks taken before this migration.
ALTER TABLE files ADD COLUMN lock_user_id TEXT;
ALTER TABLE files ADD COLUMN lock_locked_at INTEGER;
