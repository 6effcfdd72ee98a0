"""Secrets out of everything the index stores: text, keyword index and vectors alike.

Transcripts hold credentials pasted in a hurry; the index must not become a second,
easier-to-search copy of them. Each pattern names a kind of secret and matches only its
secret part, which becomes `[REDACTED:kind]`. Where matches overlap, their union is
hidden under the widest one's kind, so no part of a secret survives. The patterns are the
providers' documented token formats plus generic shapes: private key blocks (also
JSON-escaped), JWTs, passwords in URLs, `Authorization` headers, signed URLs, passwords
on command lines, and `.env`-style assignments to secret-looking names. An assigned value
that is a path, a number, a placeholder or an identifier naming a header, file or type
(`pwd=/home/dev`, `TOKEN_LIMIT=100000000`, `token_type: bearer_token`) is not a secret.

Our own list, not a maintained rule corpus, measured on the 5.7 MB of text the indexer
redacts from 40 MB of real transcripts (bench/redaction.py, 2 shared cores): gitleaks'
221 rules (v8.30.1, MIT) behind its own keyword prefilter ran at 1.8 MB/s, and at 3.5 MB/s
with each rule tried only where its keywords occur and its generic rule left out, against
29 MB/s for this module (28.7 before the kinds added in this version). Its keywords are
short and common ("sk", "key", "api"), so a keyword prefilter passes nearly every text,
and 200 narrow provider rules each cost a pass. Its generic rule wants 10+ characters of
entropy over 3.5, so it misses most of what a hostile run found stored in clear (short or
letters-only passwords, `redis://:pw@`, `mysql -pX`, `--password X`, Basic auth), and on
those transcripts it found nothing this module misses. detect-secrets was rejected
earlier at about 1.3 ms a line. The token formats below were checked against gitleaks'
rules for the same providers. Rates and false positives per kind: docs/reliability.md.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple


class _Rule(NamedTuple):
    """A kind of secret, tried only where one of its literal anchors occurs.

    Anchors are found with str.find (in C): a regex alternation scanned over every
    position ran at 2-20 MB/s, too slow for gigabytes, and each anchor costs a pass over
    the text, so rules share short anchors ("gh" for every GitHub token). The pattern is
    matched `back` characters before the anchor (lookbehinds reach further); a named
    group `secret` marks the part to hide, else the whole match. `folded` anchors are
    lower case and found in the lower-cased text. `keep` says a value is not a secret
    after all. A rule with no pattern has a function `find(text, at, anchor)` instead.

    Every pattern is bounded or stops at a character its secret cannot hold, so a long
    run of anchors (1 MB of "sk-sk-…") costs linear time, not quadratic.
    """

    kind: str
    anchors: tuple[str, ...]
    back: int
    pattern: re.Pattern[str] | None
    folded: bool = False
    keep: Callable[[str], bool] | None = None
    find: Callable[[str, int, str], tuple[int, int, str] | None] | None = None


def _rule(
    kind: str,
    anchors: tuple[str, ...],
    back: int,
    pattern: str | None,
    folded: bool = False,
    keep: Callable[[str], bool] | None = None,
    find: Callable[[str, int, str], tuple[int, int, str] | None] | None = None,
) -> _Rule:
    compiled = re.compile(pattern) if pattern else None
    return _Rule(kind, anchors, back, compiled, folded, keep, find)


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: What may stand between a name and its value: `=`, `:`, `:=`, `=>`, quotes, and the
#: backslashes of JSON escaped inside JSON, once or more (`{\"token\": \"…\"}`). A bare
#: colon needs a space or a quote after it: `passwd:gid` and `Test::name` are names.
_OPERATOR = r"""\\{0,8}["']?[ \t]*(?::=|=>|=|:(?=[ \t]|\\{0,8}["']))[ \t]*"""
_SEP = _OPERATOR + r"""\\{0,8}["']?"""
#: After a command-line flag: `--password=x`, `--password x`, `--password 'x'`.
_FLAG_VALUE = r"""(?:=|[ \t]+)["']?(?P<secret>[^\s"']{3,})"""
#: A key block's header, when key material (or PEM headers) follows: a regex that names
#: the header is not a key, and must not hide the rest of the text.
_KEY_HEAD = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?=(?:\s|\\+[nr]){0,8}(?:[A-Za-z0-9+/=]{16}|[A-Za-z\-]+:))"
)
_KEY_TAIL = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
#: Where key material stops when the END line is missing (the text was cut).
_KEY_BODY = re.compile(r"(?:[A-Za-z0-9+/=\s:,]|-(?!----)|\\+[nr])*")
#: The longest key block looked for (a 4096-bit RSA key is 3.3 KB, PGP blocks more).
_KEY_REACH = 32_000
_JWT = re.compile(
    r"eyJ[A-Za-z0-9_\-]{8,16384}+\.eyJ[A-Za-z0-9_\-]{8,65536}+\.[A-Za-z0-9_\-]{8,16384}+"
)
#: Values that look assigned to a secret but are not secrets.
_PLACEHOLDERS = re.compile(
    r"(?i)^(?:\$\{.*|\$[A-Za-z_][A-Za-z0-9_]*|\$\(.*|.*%\(?\w*\)?[sdr].*|[{<\[(*!].*"
    r"|.*\*\*\*.*|.*xxx.*|\.\.\..*|.*…|None|null|nil|true|false|.*redacted.*"
    r"|os\.environ.*|process\.env.*|getenv.*|input\(.*|your[_\-].*"
    r"|[A-Za-z_][\w.]*\(.*|[A-Za-z_][\w.]*\[.*|[A-Za-z_]\w*\??\.[A-Za-z_].*)$"
)
#: Words a password-named value or a flag's value can be without being a password.
_NOT_PASSWORDS = _wordset(
    "required optional string str text none null nil true false yes no hidden masked"
    " redacted secret password passwd pwd pass empty blank unset set field value input"
    " option flag argument parameter prompt the and or is are be to for with from not in on"
    " of as if this that your you any all only must should will can here there stdin file"
    " env environment variable protected sensitive same below above token pw mypassword"
    " bool boolean bytes int float dict list tuple object callable sample example dummy"
    " options flags arguments parameters values switch instead also was were has have"
    " needs takes accepts expects"
)


def _placeholder(value: str) -> bool:
    return bool(_PLACEHOLDERS.match(value))


def _placeholder_word(value: str) -> bool:
    """`https://user:pass@host` in docs: a placeholder word, no password."""
    return _placeholder(value) or value.lower() in _NOT_PASSWORDS


def _not_basic_credentials(value: str) -> bool:
    """A bare `Basic xxx` hides a secret only if xxx is base64 of `user:password`."""
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, ValueError):
        return True
    return ":" not in text or not text.isprintable()


def _not_a_flag_value(value: str) -> bool:
    """`--password option`, `--secret id=npmrc,src=…`: prose or a placeholder."""
    return (
        _placeholder(value)
        or value.startswith("-")
        or value.lower() in _NOT_PASSWORDS
        or ("=" in value and value.split("=", 1)[0].isalpha())
    )


def _not_a_header_value(value: str) -> bool:
    """`authorization: required`: a placeholder or a plain word, no credential."""
    return _placeholder(value) or (value.isalpha() and (value.islower() or len(value) < 8))


def _private_key(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """A key block from its header to its END line, found with str.find."""
    head = _KEY_HEAD.match(text, at)
    if not head:
        return None
    end = text.find("-----END ", head.end(), head.end() + _KEY_REACH)
    while end >= 0:
        tail = _KEY_TAIL.match(text, end)
        if tail:
            return at, tail.end(), "private-key"
        end = text.find("-----END ", end + 1, head.end() + _KEY_REACH)
    body = _KEY_BODY.match(text, head.end(), head.end() + _KEY_REACH)
    return at, body.end() if body else head.end(), "private-key"


def _jwt(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """A JWT; the regex runs only if a second part starts close enough (found in C)."""
    if text.find(".eyJ", at + 11, at + 16_400) < 0:
        return None
    match = _JWT.match(text, at)
    return (at, match.end(), "jwt") if match else None


_RULES: list[_Rule] = [
    _rule("private-key", ("-----BEGIN ",), 0, None, find=_private_key),
    _rule("anthropic-key", ("sk-",), 0, r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    _rule("openai-key", ("sk-",), 0, r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    _rule(
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        0,
        r"[A-Z]{4}[0-9A-Z]{16}(?![0-9A-Za-z])",
    ),
    _rule(
        "aws-secret-key",
        ("secret",),
        0,
        r"(?i:secret[_\-]?access[_\-]?key|(?<=aws[_\-])secret[_\-]?key)"
        + _SEP
        + r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        folded=True,
    ),
    _rule(
        "github-token",
        ("gh", "github_pat_"),
        0,
        r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    _rule("gitlab-token", ("glpat-",), 0, r"glpat-[A-Za-z0-9_\-]{20,}"),
    _rule("slack-token", ("xox",), 0, r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    _rule("google-api-key", ("AIza",), 0, r"AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
    _rule("stripe-key", ("k_",), 1, r"[srp]k_(?:live|test)_[0-9A-Za-z]{16,}"),
    _rule("npm-token", ("npm_",), 0, r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    _rule("huggingface-token", ("hf_",), 0, r"hf_[A-Za-z0-9]{34,}"),
    _rule(
        "sendgrid-key",
        ("SG.",),
        0,
        r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?![A-Za-z0-9_\-])",
    ),
    _rule("pypi-token", ("pypi-Ag",), 0, r"pypi-Ag[A-Za-z0-9_\-]{50,}"),
    _rule("twilio-key", ("SK",), 0, r"SK[0-9a-fA-F]{32}(?![0-9A-Za-z])"),
    _rule("jwt", ("eyJ",), 0, None, find=_jwt),
    # In URLs: `user:password@` with either part possibly empty; a password may hold "/",
    # a port may not (http://localhost:5173/@vite/client).
    _rule(
        "url-password",
        ("://",),
        0,
        r"://[^\s:/@\"'<>\[\]]{0,256}:(?P<secret>(?!\d+/)[^\s@\"'<>\[\]]{4,256})@",
        keep=_placeholder_word,
    ),
    _rule("slack-webhook", ("://",), 5, r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}"),
    _rule(
        "discord-webhook",
        ("://",),
        0,
        r"://(?:[\w\-]+\.)?discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_\-]{60,})",
    ),
    # Signed URLs work as credentials until they expire: Azure SAS, S3 presigned.
    _rule(
        "url-signature",
        ("sig=",),
        1,
        r"[?&;]sig=(?P<secret>[A-Za-z0-9%+/=_\-]{16,})",
        folded=True,
    ),
    _rule(
        "url-signature",
        ("x-amz-",),
        1,
        r"[?&;](?i:x-amz-(?:signature|security-token))=(?P<secret>[A-Za-z0-9%+/=_\-]{16,})",
        folded=True,
    ),
    _rule(
        "auth-header",
        ("authorization",),
        0,
        r"(?i:authorization)" + _SEP + r"(?i:(?:bearer|basic|token|bot|digest|apikey)\s+)?"
        r"(?P<secret>(?!(?i:bearer|basic|token|bot|digest)\b)[^\s\"'`,;)\]}\\]{6,})",
        folded=True,
        keep=_not_a_header_value,
    ),
    _rule(
        "auth-header",
        ("bearer",),
        0,
        r"(?i:bearer)\s+(?P<secret>(?=[A-Za-z0-9\-._~+/]{0,64}\d)[A-Za-z0-9\-._~+/]{16,}=*)",
        folded=True,
    ),
    _rule(
        "auth-header",
        ("basic ",),
        0,
        r"(?i:basic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        folded=True,
        keep=_not_basic_credentials,
    ),
    _rule(
        "azure-key",
        ("key",),
        0,
        r"(?i:(?:(?<=account)|(?<=sharedaccess))key)\s*=\s*(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
        folded=True,
    ),
    _rule(
        "npmrc-auth",
        ("_auth",),
        0,
        r"(?<![\w.])(?i:_auth(?:token)?)[ \t]*=[ \t]*[\"']?(?P<secret>[^\s\"']{8,})",
        folded=True,
        keep=lambda value: _placeholder(value) or bool(_identifier_words(value)),
    ),
    # Command lines. The flags share the anchors of the names they hold.
    _rule(
        "cli-password",
        ("pass",),
        0,
        r"(?i:(?<=--)(?:password|passwd|pass))" + _FLAG_VALUE,
        folded=True,
        keep=_not_a_flag_value,
    ),
    _rule(
        "cli-password",
        ("token",),
        0,
        r"(?i:(?:(?<=--)|(?<=--auth-)|(?<=--access-)|(?<=--api-))token)" + _FLAG_VALUE,
        folded=True,
        keep=_not_a_flag_value,
    ),
    _rule(
        "cli-password",
        ("secret",),
        0,
        r"(?i:(?:(?<=--)|(?<=--client-))secret)" + _FLAG_VALUE,
        folded=True,
        keep=_not_a_flag_value,
    ),
    _rule(
        "cli-password",
        ("key",),
        0,
        r"(?i:(?:(?<=--api-)|(?<=--api))key)" + _FLAG_VALUE,
        folded=True,
        keep=_not_a_flag_value,
    ),
    _rule(
        "cli-password",
        ("pass",),
        0,
        r"(?i:(?<=ssh)pass)(?:[ \t]+-[a-oq-zA-Z]\S*)*[ \t]+-p[ \t]*[\"']?(?P<secret>[^\s\"']+)",
        folded=True,
        keep=_placeholder,
    ),
    # mysql takes its password glued to -p: `-p name` prompts, `-psecret` does not.
    _rule(
        "cli-password",
        ("mysql",),
        0,
        r"(?i:mysql)[\w\-]*[ \t][^\n|;&]{0,200}?[ \t]-p(?P<secret>[^\s\"'\-][^\s\"']*)",
        folded=True,
        keep=_placeholder,
    ),
    _rule(
        "cli-password",
        ("curl",),
        0,
        r"(?i:curl)[ \t][^\n|;&]{0,200}?[ \t](?:-u|--user)[ \t=]*[\"']?[^\s:\"']*:"
        r"(?P<secret>[^\s\"']+)",
        folded=True,
        keep=_placeholder,
    ),
    # `.env`-style assignments: the anchors are the words that make a name secret.
    _rule(
        "secret-assignment",
        ("pass", "pwd", "secret", "token", "key", "credential"),
        0,
        None,
        folded=True,
        find=lambda text, at, word: _assignment(text, at, word),
    ),
]
#: A Discord bot token has no literal prefix (it starts with the bot's id in base64), so
#: it is searched for only in texts that say "discord", as gitleaks does.
_DISCORD_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}"
    r"(?![A-Za-z0-9_\-])"
)
#: Kinds that are a token of their own: one starting inside a longer word is not one.
_TOKEN_KINDS = _wordset(
    "anthropic-key openai-key aws-access-key github-token gitlab-token slack-token"
    " google-api-key stripe-key npm-token huggingface-token sendgrid-key pypi-token"
    " twilio-key jwt"
)
#: Each anchor once, with every rule tried where it occurs.
_ANCHORS: list[tuple[str, bool, tuple[_Rule, ...]]] = [
    (anchor, folded, tuple(r for r in _RULES if anchor in r.anchors and r.folded == folded))
    for anchor, folded in dict.fromkeys((a, r.folded) for r in _RULES for a in r.anchors)
]

#: The whole words behind the name anchors; "pass" starts three of them.
_LONGER_WORDS = {"pass": ("word", "wd", "phrase")}
_PASSWORD_WORDS = _wordset("password passwd passphrase pwd pass")
#: Words too short or common to stand glued inside a longer one (`compass`, `bypass`).
_WHOLE_WORDS = _wordset("pass pwd")
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
_NOT_SECRET_SUFFIXES = _wordset(
    "file files path dir directory type kind name names header headers limit limits count"
    " len length size max min id ids env var variable ttl expiry expires expiration url uri"
    " endpoint field param prefix mode format algorithm algo budget usage used scope scopes"
    " provider version timeout enabled required location arn ref source store manager hint"
    " label pattern regex schema index offset lifetime age complexity history policy set"
    " strength reset created updated changed at mgr warning error exception prompt config"
)
_SECRET_WORDS = _wordset(
    "token tokens key keys secret secrets password passwords passwd pwd pass auth bearer"
    " api credential credentials header"
)
_ASSIGNMENT = re.compile(
    r"(?P<rest>[A-Za-z0-9_\-]{0,80})(?P<op>" + _OPERATOR + r")\\{0,8}[\"']?"
    # Quoted: up to the closing quote. Bare: up to a space, quote, bracket or the next
    # `&name=` of a query string.
    r"(?P<secret>(?<=[\"'])[^\"'\n\\]++(?=[\"'\\])|(?:[^\s\"'`,;)\]}\\&]++|&(?!\w+=))++)"
)
#: How far a name's value is looked at: far enough for an AWS session token, short
#: enough that a long run of names costs linear time.
_VALUE_REACH = 4_200
_IDENTIFIER = re.compile(r"^_*[A-Za-z][A-Za-z0-9]*(?:[_\-.]+[A-Za-z0-9]+)*$")
_DIGITS = re.compile(r"[0-9]+")
_WORD = re.compile(r"^(?:[A-Z]?[a-z]+|[A-Z]+)[0-9]*$|^[0-9]{1,4}$")
_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_PATH = re.compile(
    r"^(?:~|\.{1,2})?/[^\s]*$|^[A-Za-z]:\\|^[\w.\-]+(?:/[\w.\-]+)+\.[A-Za-z][A-Za-z0-9]{0,7}$"
)
#: Numbers, dates and times: `num_tokens: 123456789`, `PasswordLastSet: 11/15/2025`.
_NUMBER = re.compile(r"^[+-]?\d[\d_,.:/\-]*(?:T[\d:.]+Z?)?$")


#: Typed anywhere in a prompt, keeps the whole session out of the index for good.
PRIVATE_MARKER = "findsession:private"
_PRIVATE_SPAN = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def redact(text: str) -> tuple[str, Counter[str]]:
    """`text` with every secret replaced by `[REDACTED:kind]`, and how many of each kind.

    A `<private>…</private>` span (to the end of the text if unclosed) is dropped whole.
    """
    found: Counter[str] = Counter()
    if not text:
        return text, found
    lowered = _lower(text)
    if "<private>" in lowered:
        text, n = _PRIVATE_SPAN.subn("[private]", text)
        found["private-span"] += n
        lowered = _lower(text)
    spans: list[tuple[int, int, str]] = []  # (start, end, kind) of the parts to hide
    for anchor, folded, rules in _ANCHORS:
        haystack = lowered if folded else text
        at = haystack.find(anchor)
        while at >= 0:
            resume = at + 1
            for rule in rules:
                span = _try(rule, text, at, anchor)
                if span:
                    spans.append(span)
                    resume = max(resume, span[1])  # anchors inside it find nothing wider
            at = haystack.find(anchor, resume)
    if "discord" in lowered:
        spans.extend((m.start(), m.end(), "discord-token") for m in _DISCORD_TOKEN.finditer(text))
    if not spans:
        return text, found
    out, last = [], 0
    for start, end, kind in _union(spans):
        out.append(text[last:start] + f"[REDACTED:{kind}]")
        found[kind] += 1
        last = end
    out.append(text[last:])
    return "".join(out), found


def _lower(text: str) -> str:
    """Lower case, offset for offset with `text` ("İ".lower() is two characters)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def _try(rule: _Rule, text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """The span `rule` hides for the anchor found at `at`, if any."""
    start = max(0, at - rule.back)
    if rule.kind in _TOKEN_KINDS and _glued(text, start):
        return None
    if rule.find is not None:
        return rule.find(text, at, anchor)
    match = rule.pattern.match(text, start) if rule.pattern else None
    if not match:
        return None
    span = _secret_span(match, rule.kind)
    if rule.keep is not None and rule.keep(text[span[0] : span[1]]):
        return None
    return span


def _assignment(text: str, at: int, word: str) -> tuple[int, int, str] | None:
    """The value assigned to a secret-looking name holding `word` at `at`, if a secret."""
    end = at + len(word)
    for longer in _LONGER_WORDS.get(word, ()):
        if text[end : end + len(longer)].lower() == longer:
            word, end = word + longer, end + len(longer)
            break
    match = _ASSIGNMENT.match(text, end, end + _VALUE_REACH)
    if not match or not _secret_name(text, at, word, match.group("rest")):
        return None
    value = match.group("secret").strip().rstrip(":")
    is_password = word in _PASSWORD_WORDS
    if word == "pwd" and value.isalpha():
        return None  # `pwd: expected bytes`: pwd is a directory or a word far more often
    quoted = text[match.start("secret") - 1] in "\"'"
    code = not quoted and match.group("op").startswith((" ", "\t")) and "=" in match.group("op")
    if _not_a_secret(value, is_password, quoted, code):
        return None
    start = match.start("secret")
    return start, start + len(match.group("secret").rstrip()), "secret-assignment"


def _not_a_secret(value: str, is_password: bool, quoted: bool, code: bool) -> bool:
    """Whether a value assigned to a secret name is something else.

    `quoted`: it is a literal in quotes; `code`: `name = value` unquoted, as code
    assigns a variable.
    """
    if not value or _PLACEHOLDERS.match(value) or _PATH.match(value):
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
    words = _identifier_words(value)
    # An identifier of words names the secret (hashedPassword, bearer_token, X-Api-Key),
    # or is a variable or type in code (batch_size, SettingsSourceCallable); a quoted
    # literal or a password may only look like one (Correct-Horse).
    return bool(words) and (
        any(w.lower() in _SECRET_WORDS for w in words) or (not quoted and (code or not is_password))
    )


def _identifier_words(value: str) -> list[str]:
    """The words of an identifier made of words (batch_size, Ed25519PrivateKey), else []."""
    words = _PARTS.findall(value) if _IDENTIFIER.match(value) else []
    if (
        len(words) < 2
        or len(value) < 3 * len(words)  # random text splits into short pieces: tK7mQ2xZ9
        or len(_DIGITS.findall(value)) > 1
        or not all(map(_WORD.match, words))
    ):
        return []
    return words


def _secret_name(text: str, at: int, word: str, rest: str) -> bool:
    """Whether the name around `word` (found at `at`, `rest` after it) names a secret."""
    camel = at > 0 and text[at - 1].islower() and text[at].isupper()  # dbPassword
    if word in _WHOLE_WORDS and at > 0 and text[at - 1].isalnum() and not camel:
        return False  # compass, bypass
    if word == "pass" and not (camel or (at > 0 and text[at - 1] in "_-")):
        return False  # prose ("second pass: check"); DB_PASS and dbPass are names
    head = text[max(0, at - 24) : at].lower()
    if word == "key" and not head.rstrip("_-").endswith(_KEY_QUALIFIERS):
        return False
    if "public" in head[-12:]:
        return False  # publicKeyToken, public_key: meant to be seen
    if not rest:
        return True
    if rest[0] not in "_-" and not (rest[0].isupper() and text[at + len(word) - 1].islower()):
        # Glued on: a plural (TOKENS, credentials) or another word (tokenizer, keyboard).
        return rest.lower() in ("s", "es")
    last = _PARTS.findall(rest)
    return not last or last[-1].lower() not in _NOT_SECRET_SUFFIXES


def _union(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans merged into one, named after the widest of them."""
    merged: list[tuple[int, int, str]] = []
    widest = 0
    for start, end, kind in sorted(spans):
        if merged and start < merged[-1][1]:
            m_start, m_end, m_kind = merged[-1]
            if end - start > widest:
                m_kind, widest = kind, end - start
            merged[-1] = (m_start, max(m_end, end), m_kind)
        else:
            merged.append((start, end, kind))
            widest = end - start
    return merged


def _glued(text: str, start: int) -> bool:
    """True when a token-like match starts inside a longer word."""
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")


def _secret_span(match: re.Match[str], kind: str) -> tuple[int, int, str]:
    if "secret" in match.re.groupindex and match.group("secret") is not None:
        return match.start("secret"), match.end("secret"), kind
    return match.start(), match.end(), kind
