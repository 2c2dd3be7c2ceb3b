-- Downloads of several items as one archive are file operations too ('download'): the
-- kind's CHECK takes a fourth value.
ALTER TABLE file_operations DROP CONSTRAINT file_operations_kind_check;
ALTER TABLE file_operations ADD CONSTRAINT file_operations_kind_check
  CHECK (kind IN ('move', 'copy', 'delete', 'download'));
