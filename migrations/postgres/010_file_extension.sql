-- Sorting a folder by type (ONLYOFFICE's SortedByType "Type") orders files by extension:
-- the lower-case text after the last dot of the title, '' when there is none (or the
-- title ends with a dot). A generated column keeps it in step with every rename without
-- any writer knowing, and the index keeps a page's cost flat with the folder's size.
-- COLLATE "C" orders it by bytes, as SQLite does.
ALTER TABLE files ADD COLUMN extension text COLLATE "C" GENERATED ALWAYS AS (
  CASE WHEN strpos(title_key, '.') = 0 THEN ''
    ELSE reverse(split_part(reverse(title_key), '.', 1)) END
) STORED;
CREATE INDEX files_by_folder_extension ON files (folder_id, extension, title_key);
