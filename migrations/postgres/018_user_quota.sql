-- Storage quotas. used_space holds the bytes of every stored version of the files each
-- user owns (trash included), kept by triggers in the transaction that adds or removes a
-- version, so every instance on the store reads the same figure in one row read.

CREATE TABLE used_space (
  owner_id text COLLATE "C" PRIMARY KEY,
  bytes bigint NOT NULL
);

INSERT INTO used_space (owner_id, bytes)
  SELECT files.owner_id, sum(versions.size) FROM versions
    JOIN files ON files.id = versions.file_id GROUP BY files.owner_id;

CREATE FUNCTION used_space_follow_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO used_space (owner_id, bytes)
      SELECT owner_id, NEW.size FROM files WHERE id = NEW.file_id
      ON CONFLICT (owner_id) DO UPDATE SET bytes = used_space.bytes + excluded.bytes;
  ELSE
    -- Only while the file stays: the versions a file's deletion cascades to were
    -- counted off by used_space_follow_files already.
    UPDATE used_space SET bytes = bytes - OLD.size
      WHERE owner_id = (SELECT owner_id FROM files WHERE id = OLD.file_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION used_space_follow_files() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  held bigint;
BEGIN
  SELECT coalesce(sum(size), 0) INTO held FROM versions WHERE file_id = OLD.id;
  UPDATE used_space SET bytes = bytes - held WHERE owner_id = OLD.owner_id;
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO used_space (owner_id, bytes) VALUES (NEW.owner_id, held)
      ON CONFLICT (owner_id) DO UPDATE SET bytes = used_space.bytes + excluded.bytes;
    RETURN NEW;
  END IF;
  RETURN OLD;
END
$$;

CREATE TRIGGER used_space_after_version_insert AFTER INSERT ON versions
  FOR EACH ROW EXECUTE FUNCTION used_space_follow_versions();

CREATE TRIGGER used_space_after_version_delete AFTER DELETE ON versions
  FOR EACH ROW EXECUTE FUNCTION used_space_follow_versions();

CREATE TRIGGER used_space_before_file_delete BEFORE DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION used_space_follow_files();

CREATE TRIGGER used_space_after_owner_change AFTER UPDATE OF owner_id ON files
  FOR EACH ROW WHEN (NEW.owner_id IS DISTINCT FROM OLD.owner_id)
  EXECUTE FUNCTION used_space_follow_files();

-- An admin's limit per user, in bytes; a user without a row has none.
CREATE TABLE user_quotas (
  user_id text COLLATE "C" PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  quota_limit bigint NOT NULL CHECK (quota_limit >= 0)
);
