"""A password told in words: "the password was Tr0ub4dor&3", "my password for the NAS is
'lemonade-Kx7q'". No name is assigned a value, so the assignment rule never sees it.

The word after "is" or "was" is far more often prose than a password ("the password is
required", "was reset.", "is user-defined"), so a bare value must look like a password:
not a plain word, not an identifier made of words, not a placeholder. A quoted value is
taken at its word, unless it is one of the words a password is said to be.
"""

from __future__ import annotations

import re

from findsession.redact.not_secret import identifier_words, placeholder_word

_SAID = re.compile(
    r"(?i:pass(?:word|phrase|code))"
    # "for the NAS", "to the vault": one or two words naming what it opens.
    r"(?:[ \t]+(?i:for|of|to|on)[ \t]+(?:(?i:the|my|our|your|this)[ \t]+)?[\w.@:/\-]{1,40})?"
    r"[ \t]+(?i:is|was|will[ \t]+be|has[ \t]+been|is[ \t]+now|is[ \t]+still|was[ \t]+changed"
    r"[ \t]+to|is[ \t]+set[ \t]+to|(?:was[ \t]+)?set[ \t]+to)[ \t]*:?[ \t]+"
    r"(?P<quote>[\"'`\u201c\u2018]?)(?P<secret>[^\s\"'`\u201d\u2019]{4,128})"
)
#: Punctuation that ends a sentence, not a password, when the value is not quoted.
_TRAILING = ".,;:!?)]}"


def spoken_password(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """The password a sentence says, found at the anchor "pass" at `at`."""
    if not text[at : at + 8].lower().startswith(("password", "passphra", "passcode")):
        return None
    match = _SAID.match(text, at)
    if not match:
        return None
    value = match.group("secret")
    quoted = bool(match.group("quote"))
    if not quoted:
        value = value.rstrip(_TRAILING)
    if len(value) < 4 or placeholder_word(value):
        return None
    if not quoted and _prose(value):
        return None
    start = match.start("secret")
    return start, start + len(value), "password-in-prose"


def _prose(value: str) -> bool:
    """A word or words, as a sentence goes on: `required`, `Changed`, `user-defined`."""
    if value.isalpha() and (value.islower() or value.istitle() or value.isupper()):
        return True
    return bool(identifier_words(value))
