-- Initial schema of the PostgreSQL metadata store; the same tables and rules as
-- migrations/sqlite/001_initial.sql. Times are milliseconds since the epoch
-- (bigint). *_key columns hold the JavaScript toLowerCase() of a name, so
-- uniqueness and search ignore case in every script exactly as on SQLite.
-- Ids and keys use the "C" collation: they sort by code point, as on SQLite,
-- whatever the database's default collation is.

CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  user_name text NOT NULL,
  user_name_key text COLLATE "C" NOT NULL,
  display_name text NOT NULL,
  email text NOT NULL,
  is_admin boolean NOT NULL,
  password_hash text NOT NULL,
  wopi_user_info text NOT NULL DEFAULT '',
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT users_user_name_key_unique UNIQUE (user_name_key)
);

CREATE TABLE sessions (
  token_hash text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);

CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

CREATE TABLE login_throttle (
  key text COLLATE "C" PRIMARY KEY,
  failures bigint NOT NULL,
  window_started_at bigint NOT NULL
);

-- owner_id, created_by and updated_by carry no foreign key: files outlive
-- the removal of the user who owns or touched them.
CREATE TABLE files (
  id text COLLATE "C" PRIMARY KEY,
  owner_id text COLLATE "C" NOT NULL,
  title text NOT NULL,
  title_key text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  blob_key text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  created_by text NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL,
  lock_id text,
  lock_expires_at bigint,
  key_version bigint NOT NULL,
  revision bigint NOT NULL,
  CHECK ((lock_id IS NULL) = (lock_expires_at IS NULL))
);

-- Also serves listing by title: the key is unique per owner, so no tie
-- needs the id.
CREATE UNIQUE INDEX files_by_owner_title ON files (owner_id, title_key);
CREATE INDEX files_by_owner_updated ON files (owner_id, updated_at, id);
CREATE INDEX files_by_owner_created ON files (owner_id, created_at, id);
CREATE INDEX files_by_owner_size ON files (owner_id, size, id);

-- meta is JSON kept as text (as on SQLite): jsonb would refuse a \u0000 escape.
CREATE TABLE versions (
  file_id text COLLATE "C" NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  version bigint NOT NULL,
  blob_key text COLLATE "C" NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  created_at bigint NOT NULL,
  created_by text NOT NULL,
  source text NOT NULL,
  meta text NOT NULL DEFAULT '{}',
  CONSTRAINT versions_pkey PRIMARY KEY (file_id, version)
);

CREATE TABLE settings (
  name text COLLATE "C" PRIMARY KEY,
  value text NOT NULL
);
