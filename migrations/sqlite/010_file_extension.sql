-- Sorting a folder by type (ONLYOFFICE's SortedByType "Type") orders files by extension:
-- the lower-case text after the last dot of the title, '' when there is none (or the
-- title ends with a dot). A generated column keeps it in step with every rename without
-- any writer knowing, and the index keeps a page's cost flat with the folder's size.
-- rtrim() strips every character but '.' from the right, leaving the title up to its
-- last dot; the rest is the extension.
ALTER TABLE files ADD COLUMN extension TEXT GENERATED ALWAYS AS (
  CASE WHEN instr(title_key, '.') = 0 THEN ''
    ELSE substr(title_key, length(rtrim(title_key, replace(title_key, '.', ''))) + 1) END
) VIRTUAL;
CREATE INDEX files_by_folder_extension ON files (folder_id, extension, title_key);
