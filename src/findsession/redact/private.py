"""What a person marks private: a `<private>` span, or a whole session by its marker."""

from __future__ import annotations

import re

#: Typed anywhere in a prompt, keeps the whole session out of the index for good.
PRIVATE_MARKER = "findsession:private"
_PRIVATE_SPAN = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)


def drop_private_spans(text: str) -> tuple[str, int]:
    """`text` with each `<private>…</private>` span (to the end of the text if unclosed)
    replaced by `[private]`, and how many there were."""
    return _PRIVATE_SPAN.subn("[private]", text)
