"""`.env`-style assignments to secret-looking names: `DB_PASSWORD=…`, `"apiKey": "…"`,
`DATABASE_URL_PW=…`, `AZURE_DEVOPS_PAT=…`, `DISCORD_BOT=…`.

The anchors are the words that make a name secret; the name around the word decides
whether it is one (`sort_key` and `TOKEN_LIMIT` are not), and the value whether it is
a secret or a placeholder, path, number or identifier (see `not_secret`).
"""

from __future__ import annotations

import re

from findsession.redact.not_secret import PARTS, not_a_secret, wordset

#: What may stand between a name and its value: `=`, `:`, `:=`, `=>`, a shell default's
#: `:-` (`${API_TOKEN:-…}`), quotes (a Markdown code span's backtick after the name), and
#: the backslashes of JSON escaped inside JSON, once or more (`{\"token\": \"…\"}`). A
#: bare colon needs a space or a quote after it: `passwd:gid` and `Test::name` are names.
OPERATOR = r"""\\{0,8}["'`]?[ \t]*(?::=|:-|=>|=|:(?=[ \t]|\\{0,8}["']))[ \t]*"""

#: The whole words behind the name anchors; "pass" starts three of them, "pw" one.
_LONGER_WORDS = {"pass": ("word", "wd", "phrase"), "pw": ("d",)}
_PASSWORD_WORDS = wordset("password passwd passphrase pwd pass pw")
#: Words too short or common to stand glued inside a longer one (`compass`, `bypass`).
_WHOLE_WORDS = wordset("pass pwd pw pat bot")
#: Whole words so short that a letter after them makes another word (Path, bottom).
_SHORT_WORDS = wordset("pw pat bot")
#: A bot's name holds its token only on these platforms (`DISCORD_BOT=`, not `DEFAULT_BOT=`).
_BOT_PLATFORMS = ("discord", "telegram", "slack")
#: A "key" is secret only as one of these (`api_key`, `SecretAccessKey`, `AccountKey`),
#: not as `sort_key`, `public_key` or a keyboard's.
_KEY_QUALIFIERS = (
    "api",
    "access",
    "private",
    "auth",
    "signing",
    "encryption",
    "master",
    "secret",
    "account",
    "app",
)
#: The last part of a name that says its value is about a secret, not the secret
#: (`SECRET_KEY_FILE`, `TOKEN_LIMIT`, `api_key_header_name`).
_NOT_SECRET_SUFFIXES = wordset(
    "file files path dir directory type kind name names header headers limit limits count"
    " len length size max min id ids env var variable ttl expiry expires expiration url uri"
    " endpoint field param prefix mode format algorithm algo budget usage used scope scopes"
    " provider version timeout enabled required location arn ref source store manager hint"
    " label pattern regex schema index offset lifetime age complexity history policy set"
    " strength reset created updated changed at mgr warning error exception prompt config"
)
_ASSIGNMENT = re.compile(
    r"(?P<rest>[A-Za-z0-9_\-]{0,80})(?P<op>" + OPERATOR + r")\\{0,8}[\"'`]?"
    # Quoted (or in a Markdown code span): up to the closing quote. Bare: up to a space,
    # quote, bracket or the next `&name=` of a query string.
    r"(?P<secret>(?<=[\"'`])[^\"'`\n\\]++(?=[\"'`\\])|(?:[^\s\"'`,;)\]}\\&]++|&(?!\w+=))++)"
)
#: How far a name's value is looked at: far enough for an AWS session token, short
#: enough that a long run of names costs linear time.
_VALUE_REACH = 4_200


def assignment(text: str, at: int, word: str) -> tuple[int, int, str] | None:
    """The value assigned to a secret-looking name holding `word` at `at`, if a secret."""
    word = word.lower()
    end = at + len(word)
    for longer in _LONGER_WORDS.get(word, ()):
        if text[end : end + len(longer)].lower() == longer:
            word, end = word + longer, end + len(longer)
            break
    if word in _WHOLE_WORDS and (_glued_on(text, at) or _goes_on(text, at, word)):
        return None  # bypass, compass, Path, PATTERN, robots: told before any regex runs
    match = _ASSIGNMENT.match(text, end, end + _VALUE_REACH)
    if not match or not _secret_name(text, at, word, match.group("rest")):
        return None
    value = match.group("secret").strip().rstrip(":")
    is_password = word in _PASSWORD_WORDS
    if word == "pwd" and value.isalpha():
        return None  # `pwd: expected bytes`: pwd is a directory or a word far more often
    quote = text[match.start("secret") - 1]
    if quote == "`" and "${" in value:
        return None  # a JavaScript template literal: `temp_password:${email}` is built
    # A code span is no string literal: an identifier in one names a thing (`secret:
    # \`vault-sync-service\``), as a bare one does.
    quoted = quote in "\"'"
    op = match.group("op")
    code = not quoted and op.startswith((" ", "\t")) and "=" in op
    if not quoted and op.startswith((" ", "\t")) and value.isalpha() and value.islower():
        return None  # `pw : rational number`: a docstring's parameter and its type
    if not_a_secret(value, is_password, quoted, code):
        return None
    start = match.start("secret")
    return start, start + len(match.group("secret").rstrip()), "secret-assignment"


def _glued_on(text: str, at: int) -> bool:
    """A word inside a longer one (compass), not a part of a name (dbPass, DB_PASS)."""
    camel = at > 0 and text[at - 1].islower() and text[at].isupper()
    return at > 0 and text[at - 1].isalnum() and not camel


def _goes_on(text: str, at: int, word: str) -> bool:
    """A short word that is the start of a longer one: `Path`, `PATCH`, `bottom`; not
    `PatToken` (a new word in camel case) and not `pass`, whose longer words are names."""
    if word not in _SHORT_WORDS:
        return False
    end = at + len(word)
    following = text[end : end + 1]
    return following.isalpha() and following.islower() == text[end - 1].islower()


def _secret_name(text: str, at: int, word: str, rest: str) -> bool:
    """Whether the name around `word` (found at `at`, `rest` after it) names a secret."""
    camel = at > 0 and text[at - 1].islower() and text[at].isupper()  # dbPassword
    if word == "pass" and not (camel or (at > 0 and text[at - 1] in "_-")):
        return False  # prose ("second pass: check"); DB_PASS and dbPass are names
    if word == "pat" and text[at] != "P":
        return False  # a personal access token as env and config name it (AZURE_DEVOPS_PAT,
        # adoPat); in code `pat`, `url_pat` are patterns
    head = text[max(0, at - 24) : at].lower()
    if word == "bot" and not head.rstrip("_-").endswith(_BOT_PLATFORMS):
        return False
    if word == "key" and not head.rstrip("_-").endswith(_KEY_QUALIFIERS):
        return False
    if "public" in head[-12:]:
        return False  # publicKeyToken, public_key: meant to be seen
    if not rest:
        return True
    if rest[0] not in "_-" and not (rest[0].isupper() and text[at + len(word) - 1].islower()):
        # Glued on: a plural (TOKENS, credentials) or another word (tokenizer, keyboard).
        return rest.lower() in ("s", "es")
    last = PARTS.findall(rest)
    return not last or last[-1].lower() not in _NOT_SECRET_SUFFIXES
