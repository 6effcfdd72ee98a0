"""The core API's parts: `Findsession`'s methods, one group of them per module.

`findsession` (this package's module of that name) assembles `Findsession` from these
mixins (as `storage/sqlite` assembles its `Store`), so the public face stays one class
while no module grows past a page; `options` holds the typed options its methods take.
Interfaces never import this package: they import `findsession.api` alone.
"""
