-- Folders and trash. Every user has a root folder per section ('my': their documents,
-- 'trash'); other folders hang under a parent. A folder's section is its root's, found
-- by walking parent_id, so moving a folder is one update of its parent_id and its
-- content follows by reference. Every file lives in one folder, and titles are unique
-- per folder without regard to case (title_key as in 001).
-- files.folder_id carries no foreign key (as owner_id): the store deletes a folder's
-- files in the same transaction as the folder.

CREATE TABLE folders (
  id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  parent_id TEXT REFERENCES folders (id),
  title TEXT NOT NULL,
  title_key TEXT NOT NULL,
  root_type TEXT CHECK (root_type IN ('my', 'trash')),
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  updated_by TEXT NOT NULL,
  revision INTEGER NOT NULL,
  trashed_at INTEGER,
  origin_folder_id TEXT,
  CHECK ((parent_id IS NULL) = (root_type IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX folders_root ON folders (owner_id, root_type) WHERE parent_id IS NULL;
CREATE UNIQUE INDEX folders_by_parent_title ON folders (parent_id, title_key);
CREATE INDEX folders_by_parent_updated ON folders (parent_id, updated_at, id);
CREATE INDEX folders_by_parent_created ON folders (parent_id, created_at, id);
CREATE INDEX folders_trashed ON folders (trashed_at) WHERE trashed_at IS NOT NULL;

-- Existing files move into their owner's 'my' root.
INSERT INTO folders (id, owner_id, parent_id, title, title_key, root_type, created_at,
    created_by, updated_at, updated_by, revision)
  SELECT lower(hex(randomblob(16))), owner_id, NULL, 'My documents', 'my documents', 'my',
      min(created_at), owner_id, max(updated_at), owner_id, 1
    FROM files GROUP BY owner_id;

ALTER TABLE files ADD COLUMN folder_id TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN trashed_at INTEGER;
ALTER TABLE files ADD COLUMN origin_folder_id TEXT;

UPDATE files SET folder_id = (SELECT id FROM folders
  WHERE folders.owner_id = files.owner_id AND folders.parent_id IS NULL
    AND folders.root_type = 'my');

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
DROP TRIGGER file_counts_after_insert;
DROP TRIGGER file_counts_after_delete;
DROP TRIGGER file_counts_after_owner_change;
DROP TABLE file_counts;

CREATE TABLE folder_counts (
  folder_id TEXT PRIMARY KEY,
  files INTEGER NOT NULL DEFAULT 0 CHECK (files >= 0),
  folders INTEGER NOT NULL DEFAULT 0 CHECK (folders >= 0)
) STRICT;

INSERT INTO folder_counts (folder_id, files)
  SELECT folder_id, count(*) FROM files GROUP BY folder_id;

CREATE TRIGGER folder_counts_file_insert AFTER INSERT ON files BEGIN
  INSERT INTO folder_counts (folder_id, files) VALUES (NEW.folder_id, 1)
    ON CONFLICT (folder_id) DO UPDATE SET files = files + 1;
END;

CREATE TRIGGER folder_counts_file_delete AFTER DELETE ON files BEGIN
  UPDATE folder_counts SET files = files - 1 WHERE folder_id = OLD.folder_id;
END;

CREATE TRIGGER folder_counts_file_move AFTER UPDATE OF folder_id ON files
  WHEN NEW.folder_id IS NOT OLD.folder_id BEGIN
  UPDATE folder_counts SET files = files - 1 WHERE folder_id = OLD.folder_id;
  INSERT INTO folder_counts (folder_id, files) VALUES (NEW.folder_id, 1)
    ON CONFLICT (folder_id) DO UPDATE SET files = files + 1;
END;

CREATE TRIGGER folder_counts_folder_insert AFTER INSERT ON folders
  WHEN NEW.parent_id IS NOT NULL BEGIN
  INSERT INTO folder_counts (folder_id, folders) VALUES (NEW.parent_id, 1)
    ON CONFLICT (folder_id) DO UPDATE SET folders = folders + 1;
END;

CREATE TRIGGER folder_counts_folder_delete AFTER DELETE ON folders BEGIN
  UPDATE folder_counts SET folders = folders - 1 WHERE folder_id = OLD.parent_id;
  DELETE FROM folder_counts WHERE folder_id = OLD.id;
END;

CREATE TRIGGER folder_counts_folder_move AFTER UPDATE OF parent_id ON folders
  WHEN NEW.parent_id IS NOT OLD.parent_id BEGIN
  UPDATE folder_counts SET folders = folders - 1 WHERE folder_id = OLD.parent_id;
  INSERT INTO folder_counts (folder_id, folders) VALUES (NEW.parent_id, 1)
    ON CONFLICT (folder_id) DO UPDATE SET folders = folders + 1;
END;
