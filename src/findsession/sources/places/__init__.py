"""Where each agent keeps its files by default, and the store it keeps inside a project:
every source's place rules, in a few light modules (the standard library, and
`findsession.paths` for a path a person wrote).

An index run with no folder named reads every enabled source's standard places, and
`sources` lists them; usually one or two of those places exist. Asking each source's
class for them imported all ~57 source modules and their parsers (a third to half of a
cold `index`'s imports) to learn paths: the rules live here instead, each source's
entry in `registry.ENTRIES` names its rules (`Entry.places`, `Entry.in_project`), and
`Source.default_roots` and `Source.project_root` answer from them, so a rule is written
once and read without its parser.

A rule follows its agent's own resolution: the variable that moves its home, the
platform's data or config folder, a config file that names another folder. Each reads
only the variables its entry lists (checked from the code: tests/test_source_seam.py).
Nothing here imports a parser.
"""
