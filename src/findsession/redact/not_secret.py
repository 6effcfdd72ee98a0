"""What a value matched as a secret can be instead: a placeholder, a word, a path, a
number, or an identifier that names the secret rather than holding it.

Each rule's `keep` and the `.env`-style assignments ask here before hiding a value.
"""

from __future__ import annotations

import base64
import binascii
import re


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Values that look assigned to a secret but are not secrets.
_PLACEHOLDERS = re.compile(
    r"(?i)^(?:\$\{.*|\$[A-Za-z_][A-Za-z0-9_]*|\$\(.*|.*%\(?\w*\)?[sdr].*|[{<\[(*!].*"
    r"|.*\*\*\*.*|.*xxx.*|\.\.\..*|.*…|None|null|nil|true|false|.*redacted.*"
    r"|os\.environ.*|process\.env.*|getenv.*|input\(.*|your[_\-].*"
    r"|[A-Za-z_][\w.]*\(.*|[A-Za-z_][\w.]*\[.*)$"
)
#: `name.name…` at the start of a value: code reaching an attribute (`self.token`,
#: `settings.API_KEY`, `os.environ`), when every part is a word or made of words.
_DOTTED = re.compile(r"[A-Za-z_]\w*\??(?:\??\.[A-Za-z_]\w*)+")
#: Words a password-named value or a flag's value can be without being a password.
_NOT_PASSWORDS = wordset(
    "required optional string str text none null nil true false yes no hidden masked"
    " redacted secret password passwd pwd pass empty blank unset set field value input"
    " option flag argument parameter prompt the and or is are be to for with from not in on"
    " of as if this that your you any all only must should will can here there stdin file"
    " env environment variable protected sensitive same below above token pw mypassword"
    " bool boolean bytes int float dict list tuple object callable sample example dummy"
    " options flags arguments parameters values switch instead also was were has have"
    " needs takes accepts expects"
)


def placeholder(value: str) -> bool:
    return bool(_PLACEHOLDERS.match(value)) or _attribute(value)


def _attribute(value: str) -> bool:
    """Code reaching an attribute (`config.api_token`, `np.float32`), not a token with a
    dot in it (`Xk9mQ2pL.vR7tZ4wN8sY2`, `<32 hex>.<16 characters>`: what comes before
    its dot is no name)."""
    dotted = _DOTTED.match(value)
    if not dotted:
        return False
    parts = re.split(r"\??\.", dotted.group(0).rstrip("?"))
    # What the attribute is reached through is named in code; the attribute itself may
    # be any name (`rust_openssl.hpke.MLKEM768X25519PrivateKey`).
    return all(map(_named, parts[:-1]))


def _named(part: str) -> bool:
    """A name of code: a word, WORDS, snake_case or camelCase of words (`_private`,
    `API_KEY`, `float32`, `getToken`)."""
    pieces = [p for p in part.split("_") if p]
    return bool(pieces) and all(_WORD.match(p) or identifier_words(p) for p in pieces)


def placeholder_word(value: str) -> bool:
    """`https://user:pass@host` in docs: a placeholder word, no password."""
    return placeholder(value) or value.lower() in _NOT_PASSWORDS


def not_basic_credentials(value: str) -> bool:
    """A bare `Basic xxx` hides a secret only if xxx is base64 of `user:password`."""
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, ValueError):
        return True
    return ":" not in text or not text.isprintable()


def not_a_flag_value(value: str) -> bool:
    """`--password option`, `--secret id=npmrc,src=…`: prose or a placeholder."""
    return (
        placeholder(value)
        or value.startswith("-")
        or value.lower() in _NOT_PASSWORDS
        or ("=" in value and value.split("=", 1)[0].isalpha())
    )


def not_a_header_value(value: str) -> bool:
    """`authorization: required`: a placeholder or a plain word, no credential."""
    return placeholder(value) or (value.isalpha() and (value.islower() or len(value) < 8))


_SECRET_WORDS = wordset(
    "token tokens key keys secret secrets password passwords passwd pwd pass auth bearer"
    " api credential credentials header"
)
_IDENTIFIER = re.compile(r"^_*[A-Za-z][A-Za-z0-9]*(?:[_\-.]+[A-Za-z0-9]+)*$")
_DIGITS = re.compile(r"[0-9]+")
_WORD = re.compile(r"^(?:[A-Z]?[a-z]+|[A-Z]+)[0-9]*$|^[0-9]{1,4}$")
PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_PATH = re.compile(
    r"^(?:~|\.{1,2})?/[^\s]*$|^[A-Za-z]:\\|^[\w.\-]+(?:/[\w.\-]+)+\.[A-Za-z][A-Za-z0-9]{0,7}$"
)
#: Numbers, dates and times: `num_tokens: 123456789`, `PasswordLastSet: 11/15/2025`.
_NUMBER = re.compile(r"^[+-]?\d[\d_,.:/\-]*(?:T[\d:.]+Z?)?$")


def not_a_secret(value: str, is_password: bool, quoted: bool, code: bool) -> bool:
    """Whether a value assigned to a secret name is something else.

    `quoted`: it is a literal in quotes; `code`: `name = value` unquoted, as code
    assigns a variable.
    """
    if not value or placeholder(value) or _PATH.match(value):
        return True
    if len(value) < (4 if is_password else 8) or (_NUMBER.match(value) and not is_password):
        return True
    if quoted and value.count(" ") >= 4:
        return True  # a sentence: "--token": "Use a User Access Token. Prefer …"
    if value.isalpha() and (
        value.lower() in _NOT_PASSWORDS
        if is_password
        else len(value) <= 12 or value.islower() or value.istitle()
    ):
        return True  # a word: `password: required`, `token: authentication`
    if code and _IDENTIFIER.match(value) and value.islower():
        return True  # `password = auth`: code passing a variable on
    words = identifier_words(value)
    # An identifier of words names the secret (hashedPassword, bearer_token, X-Api-Key),
    # or is a variable or type in code (batch_size, SettingsSourceCallable); a quoted
    # literal or a password may only look like one (Correct-Horse).
    return bool(words) and (
        any(w.lower() in _SECRET_WORDS for w in words) or (not quoted and (code or not is_password))
    )


def identifier_words(value: str) -> list[str]:
    """The words of an identifier made of words (batch_size, Ed25519PrivateKey), else []."""
    words = PARTS.findall(value) if _IDENTIFIER.match(value) else []
    if (
        len(words) < 2
        or len(value) < 3 * len(words)  # random text splits into short pieces: tK7mQ2xZ9
        or len(_DIGITS.findall(value)) > 1
        or not all(map(_WORD.match, words))
    ):
        return []
    return words
