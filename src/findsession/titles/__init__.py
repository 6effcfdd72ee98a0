"""Session titles: proposed offline from distinctive terms (or by a model the person
runs), and given where it is safe: a Claude Code `custom-title` line appended under
guard and taken back byte for byte, or a title kept in the index for other formats.

`settings` (the `[titles]` table), `propose` (the offline core), `model` (Ollama and
OpenAI-compatible servers), `titler` (one session's proposal), `guard` (when a line may
be written), `append` and `undo` (the file changes), `refresh` (the index kept in step),
`plan` (the command), `report` (what it did).
"""
