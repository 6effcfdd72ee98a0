"""The core API's parts: `Findsession`'s methods, one group of them per module.

`findsession.api` assembles `Findsession` from these mixins (as `storage/sqlite`
assembles its `Store`), so the public face stays one class while no module grows past
a page. Interfaces never import this package: they import `findsession.api` alone.
"""
