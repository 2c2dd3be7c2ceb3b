-- Files per owner, kept by a trigger, so the total of a listing is one row read
-- instead of a count over all of the owner's files (a page of 100 must cost the
-- same with 100 or 100,000 files stored).

CREATE TABLE file_counts (
  owner_id text COLLATE "C" PRIMARY KEY,
  files bigint NOT NULL CHECK (files >= 0)
);

INSERT INTO file_counts (owner_id, files)
  SELECT owner_id, count(*) FROM files GROUP BY owner_id;

CREATE FUNCTION file_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE file_counts SET files = files - 1 WHERE owner_id = OLD.owner_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO file_counts (owner_id, files) VALUES (NEW.owner_id, 1)
      ON CONFLICT (owner_id) DO UPDATE SET files = file_counts.files + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER file_counts_after_insert AFTER INSERT ON files
  FOR EACH ROW EXECUTE FUNCTION file_counts_follow();

CREATE TRIGGER file_counts_after_delete AFTER DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION file_counts_follow();

CREATE TRIGGER file_counts_after_owner_change AFTER UPDATE OF owner_id ON files
  FOR EACH ROW WHEN (NEW.owner_id IS DISTINCT FROM OLD.owner_id)
  EXECUTE FUNCTION file_counts_follow();
