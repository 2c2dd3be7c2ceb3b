-- Initial schema of the SQLite metadata store.
-- Times are milliseconds since the epoch. *_key columns hold the JavaScript
-- toLowerCase() of a name (SQLite's lower() folds ASCII only), so uniqueness
-- and search ignore case for every script.

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  user_name TEXT NOT NULL,
  user_name_key TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  email TEXT NOT NULL,
  is_admin INTEGER NOT NULL CHECK (is_admin IN (0, 1)),
  password_hash TEXT NOT NULL,
  wopi_user_info TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

CREATE TABLE login_throttle (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  window_started_at INTEGER NOT NULL
) STRICT;

-- owner_id, created_by and updated_by carry no foreign key: files outlive
-- the removal of the user who owns or touched them.
CREATE TABLE files (
  id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  title TEXT NOT NULL,
  title_key TEXT NOT NULL,
  version INTEGER NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  blob_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  updated_by TEXT NOT NULL,
  lock_id TEXT,
  lock_expires_at INTEGER,
  key_version INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  CHECK ((lock_id IS NULL) = (lock_expires_at IS NULL))
) STRICT;

-- Also serves listing by title: the key is unique per owner, so no tie
-- needs the id.
CREATE UNIQUE INDEX files_by_owner_title ON files (owner_id, title_key);
CREATE INDEX files_by_owner_updated ON files (owner_id, updated_at, id);
CREATE INDEX files_by_owner_created ON files (owner_id, created_at, id);
CREATE INDEX files_by_owner_size ON files (owner_id, size, id);

CREATE TABLE versions (
  file_id TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  blob_key TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  source TEXT NOT NULL,
  meta TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (file_id, version)
) STRICT;

CREATE TABLE settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
