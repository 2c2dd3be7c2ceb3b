-- Sharing a folder by link: at most one link per folder, reaching everything below it at the
-- moment of each request. Only the SHA-256 (hex) of the link's key is kept; a guest's key
-- is looked up by its hash. deny_download leaves guests with viewing alone; expires_at
-- (NULL: never) and revoked_at (NULL while it works) end it.
CREATE TABLE folder_links (
  folder_id TEXT PRIMARY KEY REFERENCES folders (id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL,
  access INTEGER NOT NULL CHECK (access IN (1, 2, 5, 6)),
  deny_download INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX folder_links_by_key ON folder_links (key_hash);
