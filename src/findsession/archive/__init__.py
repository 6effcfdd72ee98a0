"""The archive of transcripts: a compressed copy, beside the index, of each transcript the
index read of a source it keeps (by default those whose agent deletes its own files), so
a session whose file its agent deleted can be written back and resumed.

`settings` (the `[archive]` table), `folder` (where it lives, one private file per
transcript), `frames` (the format: zstd frames, one per span read, each with zstd's
checksum), `keeping` (adding a read's span), `restoring` (writing a file back, only where
its agent looks, never over one), `keeper` (`Archive`, what the rest of findsession
uses). Nothing here is imported until an index run, `open` or `status` asks for it.
"""
