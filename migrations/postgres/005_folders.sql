-- Folders and trash. Every user has a root folder per section ('my': their documents,
-- 'trash'); other folders hang under a parent. A folder's section is its root's, found
-- by walking parent_id, so moving a folder is one update of its parent_id and its
-- content follows by reference. Every file lives in one folder, and titles are unique
-- per folder without regard to case (title_key as in 001).
-- files.folder_id carries no foreign key (as owner_id): the store deletes a folder's
-- files in the same transaction as the folder.

CREATE TABLE folders (
  id text COLLATE "C" PRIMARY KEY,
  owner_id text COLLATE "C" NOT NULL,
  parent_id text COLLATE "C" REFERENCES folders (id),
  title text NOT NULL,
  title_key text COLLATE "C" NOT NULL,
  root_type text CHECK (root_type IN ('my', 'trash')),
  created_at bigint NOT NULL,
  created_by text NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL,
  revision bigint NOT NULL,
  trashed_at bigint,
  origin_folder_id text COLLATE "C",
  CHECK ((parent_id IS NULL) = (root_type IS NOT NULL))
);

CREATE UNIQUE INDEX folders_root ON folders (owner_id, root_type) WHERE parent_id IS NULL;
CREATE UNIQUE INDEX folders_by_parent_title ON folders (parent_id, title_key);
CREATE INDEX folders_by_parent_updated ON folders (parent_id, updated_at, id);
CREATE INDEX folders_by_parent_created ON folders (parent_id, created_at, id);
CREATE INDEX folders_trashed ON folders (trashed_at) WHERE trashed_at IS NOT NULL;

-- Existing files move into their owner's 'my' root.
INSERT INTO folders (id, owner_id, parent_id, title, title_key, root_type, created_at,
    created_by, updated_at, updated_by, revision)
  SELECT md5(random()::text || clock_timestamp()::text || owner_id), owner_id, NULL,
      'My documents', 'my documents', 'my', min(created_at), owner_id, max(updated_at),
      owner_id, 1
    FROM files GROUP BY owner_id;

ALTER TABLE files
  ADD COLUMN folder_id text COLLATE "C" NOT NULL DEFAULT '',
  ADD COLUMN trashed_at bigint,
  ADD COLUMN origin_folder_id text COLLATE "C";

UPDATE files SET folder_id = folders.id FROM folders
  WHERE folders.owner_id = files.owner_id AND folders.parent_id IS NULL
    AND folders.root_type = 'my';

ALTER TABLE files ALTER COLUMN folder_id DROP DEFAULT;

DROP INDEX files_by_owner_title;
DROP INDEX files_by_owner_updated;
DROP INDEX files_by_owner_created;
DROP INDEX files_by_owner_size;
CREATE UNIQUE INDEX files_by_folder_title ON files (folder_id, title_key);
CREATE INDEX files_by_folder_updated ON files (folder_id, updated_at, id);
CREATE INDEX files_by_folder_created ON files (folder_id, created_at, id);
CREATE INDEX files_by_folder_size ON files (folder_id, size, id);
CREATE INDEX files_trashed ON files (trashed_at) WHERE trashed_at IS NOT NULL;

-- Direct content of each folder, kept by triggers, so a listing's total and a folder's
-- counts are one row read whatever the folder holds. Replaces the per-owner counts.
DROP TRIGGER file_counts_after_insert ON files;
DROP TRIGGER file_counts_after_delete ON files;
DROP TRIGGER file_counts_after_owner_change ON files;
DROP FUNCTION file_counts_follow();
DROP TABLE file_counts;

CREATE TABLE folder_counts (
  folder_id text COLLATE "C" PRIMARY KEY,
  files bigint NOT NULL DEFAULT 0 CHECK (files >= 0),
  folders bigint NOT NULL DEFAULT 0 CHECK (folders >= 0)
);

INSERT INTO folder_counts (folder_id, files)
  SELECT folder_id, count(*) FROM files GROUP BY folder_id;

CREATE FUNCTION folder_counts_follow_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE folder_counts SET files = files - 1 WHERE folder_id = OLD.folder_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO folder_counts (folder_id, files) VALUES (NEW.folder_id, 1)
      ON CONFLICT (folder_id) DO UPDATE SET files = folder_counts.files + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER folder_counts_file_insert AFTER INSERT ON files
  FOR EACH ROW EXECUTE FUNCTION folder_counts_follow_files();
CREATE TRIGGER folder_counts_file_delete AFTER DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION folder_counts_follow_files();
CREATE TRIGGER folder_counts_file_move AFTER UPDATE OF folder_id ON files
  FOR EACH ROW WHEN (NEW.folder_id IS DISTINCT FROM OLD.folder_id)
  EXECUTE FUNCTION folder_counts_follow_files();

CREATE FUNCTION folder_counts_follow_folders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.parent_id IS NOT NULL THEN
    UPDATE folder_counts SET folders = folders - 1 WHERE folder_id = OLD.parent_id;
  END IF;
  IF TG_OP = 'DELETE' THEN
    DELETE FROM folder_counts WHERE folder_id = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.parent_id IS NOT NULL THEN
    INSERT INTO folder_counts (folder_id, folders) VALUES (NEW.parent_id, 1)
      ON CONFLICT (folder_id) DO UPDATE SET folders = folder_counts.folders + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER folder_counts_folder_insert AFTER INSERT ON folders
  FOR EACH ROW EXECUTE FUNCTION folder_counts_follow_folders();
CREATE TRIGGER folder_counts_folder_delete AFTER DELETE ON folders
  FOR EACH ROW EXECUTE FUNCTION folder_counts_follow_folders();
CREATE TRIGGER folder_counts_folder_move AFTER UPDATE OF parent_id ON folders
  FOR EACH ROW WHEN (NEW.parent_id IS DISTINCT FROM OLD.parent_id)
  EXECUTE FUNCTION folder_counts_follow_folders();
