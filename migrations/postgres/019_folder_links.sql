-- Sharing a folder by link: at most one link per folder, reaching everything below it at the
-- moment of each request. Only the SHA-256 (hex) of the link's key is kept; a guest's key
-- is looked up by its hash. deny_download leaves guests with viewing alone; expires_at
-- (NULL: never) and revoked_at (NULL while it works) end it.
CREATE TABLE folder_links (
  folder_id text COLLATE "C" PRIMARY KEY REFERENCES folders (id) ON DELETE CASCADE,
  key_hash text COLLATE "C" NOT NULL,
  access integer NOT NULL CHECK (access IN (1, 2, 5, 6)),
  deny_download boolean NOT NULL DEFAULT false,
  expires_at bigint,
  created_at bigint NOT NULL,
  revoked_at bigint
);
CREATE INDEX folder_links_by_key ON folder_links (key_hash);
