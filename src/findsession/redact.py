"""Secrets out of everything the index stores: text, keyword index and vectors alike.

Transcripts hold credentials pasted in a hurry; the index must not become a second,
easier-to-search copy of them. Each pattern names a kind of secret and matches only its
secret part, which becomes `[REDACTED:kind]`. The patterns are the providers' documented
token formats plus a few generic shapes (private key blocks, JWTs, passwords in URLs,
`.env`-style assignments to secret-looking names). detect-secrets was measured and
rejected: about 1.3 ms a line, far too slow for gigabytes of transcripts.
"""

from __future__ import annotations

import re
from collections import Counter

# (kind, literal anchors, pattern). A pattern is tried only where one of its anchors
# occurs (found with str.find, in C): a regex alternation scanned over every position
# ran at 2-20 MB/s, too slow for gigabytes. Each pattern starts at its anchor, after
# `back` characters; a named group `secret` marks the part to hide, else the whole match.
_RULES: list[tuple[str, tuple[str, ...], int, str]] = [
    (
        "private-key",
        ("-----BEGIN ",),
        0,
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("anthropic-key", ("sk-ant-",), 0, r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk-",), 0, r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("aws-access-key", ("AKIA", "ASIA", "ABIA", "ACCA"), 0, r"[A-Z]{4}[0-9A-Z]{16}(?![0-9A-Za-z])"),
    (
        "aws-secret-key",
        ("aws_secret", "AWS_SECRET", "aws-secret"),
        0,
        r"(?i:aws_?-?secret_?-?(?:access_?-?)?key)[\"']?\s*[:=]\s*[\"']?"
        r"(?P<secret>[A-Za-z0-9/+=]{40})",
    ),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        0,
        r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    ("gitlab-token", ("glpat-",), 0, r"glpat-[A-Za-z0-9_\-]{20,}"),
    ("slack-token", ("xox",), 0, r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    (
        "slack-webhook",
        ("hooks.slack.com/",),
        8,
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}",
    ),
    ("google-api-key", ("AIza",), 0, r"AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
    ("stripe-key", ("_live_", "_test_"), 2, r"(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    ("npm-token", ("npm_",), 0, r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("huggingface-token", ("hf_",), 0, r"hf_[A-Za-z0-9]{34,}"),
    ("jwt", ("eyJ",), 0, r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("url-password", ("://",), 0, r"://[^\s:/@\"'<>]+:(?P<secret>[^\s@/\"'<>]{3,})@"),
]
#: Names of things whose assigned value is a secret, for `.env`-style lines.
_SECRET_NAMES = (
    "secret",
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "token",
    "api_key",
    "api-key",
    "apikey",
    "access_key",
    "access-key",
    "private_key",
    "auth_key",
    "credential",
)
# After the name: a plural or a `_suffix` (TOKEN_PROD), not another word (tokenizer).
_ASSIGNMENT = re.compile(
    r"(?:s|[_\-][A-Za-z0-9_\-]*)?[\"']?\s*(?:=|:=|:)\s*[\"']?"
    r"(?P<secret>[^\s\"'`,;)\]}]{8,})"
)
#: A value of letters only, this short, is a word ("required"), not a secret.
_WORDLIKE = re.compile(r"^[A-Za-z]{1,12}$")
_COMPILED = [(kind, anchors, back, re.compile(p)) for kind, anchors, back, p in _RULES]
#: Kinds that are a token of their own: one starting inside a longer word is not one.
_TOKEN_KINDS = {k for k, *_ in _RULES} - {"private-key", "url-password", "slack-webhook"}
#: Values that look assigned to a secret name but are not secrets.
_PLACEHOLDERS = re.compile(
    r"(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\*+|x+|\.\.\.|None|null|true|false"
    r"|\[REDACTED:[a-z\-]+\]|os\.environ.*|process\.env.*|getenv.*|input\(.*|your[_\-].*"
    r"|[a-z_]+\(.*|[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_].*)$"
)


#: Typed anywhere in a prompt, keeps the whole session out of the index for good.
PRIVATE_MARKER = "findsession:private"
_PRIVATE_SPAN = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)


def redact(text: str) -> tuple[str, Counter[str]]:
    """`text` with every secret replaced by `[REDACTED:kind]`, and how many of each kind.

    A `<private>…</private>` span (to the end of the text if unclosed) is dropped whole.
    """
    found: Counter[str] = Counter()
    if not text:
        return text, found
    if "<private>" in text.lower():
        text, spans = _PRIVATE_SPAN.subn("[private]", text)
        found["private-span"] += spans
    spans: list[tuple[int, int, str]] = []  # (start, end, kind) of the parts to hide
    for kind, anchors, back, pattern in _COMPILED:
        for anchor in anchors:
            at = text.find(anchor)
            while at >= 0:
                start = max(0, at - back)
                match = pattern.match(text, start)
                if match and not (kind in _TOKEN_KINDS and _glued(text, start)):
                    spans.append(_secret_span(match, kind))
                at = text.find(anchor, at + 1)
    lowered = text.lower()
    for name in _SECRET_NAMES:
        at = lowered.find(name)
        while at >= 0:
            match = _ASSIGNMENT.match(text, at + len(name))
            value = match.group("secret") if match else ""
            if match and not _PLACEHOLDERS.match(value) and not _WORDLIKE.match(value):
                spans.append(_secret_span(match, "secret-assignment"))
            at = lowered.find(name, at + 1)
    if not spans:
        return text, found
    out, last = [], 0
    for start, end, kind in sorted(spans):
        if start < last:  # inside a span already hidden
            continue
        out.append(text[last:start] + f"[REDACTED:{kind}]")
        found[kind] += 1
        last = end
    out.append(text[last:])
    return "".join(out), found


def _glued(text: str, start: int) -> bool:
    """True when a token-like match starts inside a longer word."""
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")


def _secret_span(match: re.Match[str], kind: str) -> tuple[int, int, str]:
    if "secret" in match.re.groupindex and match.group("secret") is not None:
        return match.start("secret"), match.end("secret"), kind
    return match.start(), match.end(), kind
