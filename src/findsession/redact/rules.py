"""The rule table: each kind of secret, the literal anchors it is tried at, its pattern.

The token formats were checked against gitleaks' rules for the same providers.
"""

from __future__ import annotations

from findsession.redact.assignments import OPERATOR, assignment
from findsession.redact.commands import cookie_header, docker_auth, netrc_password, sudo_stdin
from findsession.redact.long_tokens import jwt, private_key
from findsession.redact.not_secret import (
    identifier_words,
    not_a_flag_value,
    not_a_header_value,
    not_basic_credentials,
    placeholder,
    placeholder_word,
    wordset,
)
from findsession.redact.prose import spoken_password
from findsession.redact.rule import Rule, rule
from findsession.redact.tokens import KINDS, TOKEN_RULES

#: Between a secret-looking name and its value: an operator, then maybe an opening quote.
_SEP = OPERATOR + r"""\\{0,8}["']?"""
#: Between two words of a command: a shell's blank, or the `", "` of an argv written as
#: a JSON or Python list (`["mysql", "-uroot", "-pX"]`, escaped inside JSON too).
_GAP = r"""(?:[ \t]+|\\{0,8}["'][ \t]*,[ \t]*\\{0,8}["'])"""
#: After a command-line flag: `--password=x`, `--password x`, `--password 'x'`.
_FLAG_VALUE = r"""(?:=|""" + _GAP + r""")["']?(?P<secret>[^\s"']{3,})"""

_RULES: list[Rule] = [
    rule("private-key", ("-----BEGIN ",), 0, None, find=private_key),
    rule("anthropic-key", ("sk-",), 0, r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    rule("openai-key", ("sk-",), 0, r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    rule(
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        0,
        r"[A-Z]{4}[0-9A-Z]{16}(?![0-9A-Za-z])",
    ),
    rule(
        "aws-secret-key",
        ("secret",),
        0,
        r"(?i:secret[_\-]?access[_\-]?key|(?<=aws[_\-])secret[_\-]?key)"
        + _SEP
        + r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        folded=True,
    ),
    rule(
        "github-token",
        ("gh", "github_pat_"),
        0,
        r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    # GitLab's personal access, runner, deploy and pipeline trigger tokens: one anchor.
    rule("gitlab-token", ("gl",), 0, r"gl(?:pat|rt|dt|ptt)-[A-Za-z0-9_\-]{20,}"),
    rule("slack-token", ("xox",), 0, r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    rule("google-api-key", ("AIza",), 0, r"AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
    rule("stripe-key", ("k_",), 1, r"[srp]k_(?:live|test)_[0-9A-Za-z]{16,}"),
    rule("npm-token", ("npm_",), 0, r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    rule("huggingface-token", ("hf_",), 0, r"hf_[A-Za-z0-9]{34,}"),
    rule(
        "sendgrid-key",
        ("SG.",),
        0,
        r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?![A-Za-z0-9_\-])",
    ),
    rule("pypi-token", ("pypi-Ag",), 0, r"pypi-Ag[A-Za-z0-9_\-]{50,}"),
    rule("twilio-key", ("SK",), 0, r"SK[0-9a-fA-F]{32}(?![0-9A-Za-z])"),
    rule("jwt", ("eyJ",), 0, None, find=jwt),
    # In URLs: `user:password@` with either part possibly empty; a password may hold "/",
    # a port may not (http://localhost:5173/@vite/client).
    rule(
        "url-password",
        ("://",),
        0,
        r"://[^\s:/@\"'<>\[\]]{0,256}:(?P<secret>(?!\d+/)[^\s@\"'<>\[\]]{4,256})@",
        keep=placeholder_word,
    ),
    rule("slack-webhook", ("://",), 5, r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}"),
    rule(
        "discord-webhook",
        ("://",),
        0,
        r"://(?:[\w\-]+\.)?discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_\-]{60,})",
    ),
    # Signed URLs work as credentials until they expire: Azure SAS, S3 presigned.
    rule(
        "url-signature",
        ("sig=",),
        1,
        r"[?&;]sig=(?P<secret>[A-Za-z0-9%+/=_\-]{16,})",
        folded=True,
    ),
    rule(
        "url-signature",
        ("x-amz-",),
        1,
        r"[?&;](?i:x-amz-(?:signature|security-token))=(?P<secret>[A-Za-z0-9%+/=_\-]{16,})",
        folded=True,
    ),
    rule(
        "auth-header",
        ("authorization",),
        0,
        r"(?i:authorization)" + _SEP + r"(?i:(?:bearer|basic|token|bot|digest|apikey)\s+)?"
        r"(?P<secret>(?!(?i:bearer|basic|token|bot|digest)\b)[^\s\"'`,;)\]}\\]{6,})",
        folded=True,
        keep=not_a_header_value,
    ),
    rule(
        "auth-header",
        ("bearer",),
        0,
        r"(?i:bearer)\s+(?P<secret>(?=[A-Za-z0-9\-._~+/]{0,64}\d)[A-Za-z0-9\-._~+/]{16,}=*)",
        folded=True,
    ),
    rule(
        "auth-header",
        ("basic ",),
        0,
        r"(?i:basic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        folded=True,
        keep=not_basic_credentials,
    ),
    rule(
        "azure-key",
        ("key",),
        0,
        r"(?i:(?:(?<=account)|(?<=sharedaccess))key)\s*=\s*(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
        folded=True,
    ),
    rule(
        "npmrc-auth",
        ("_auth",),
        0,
        r"(?<![\w.])(?i:_auth(?:token)?)[ \t]*=[ \t]*[\"']?(?P<secret>[^\s\"']{8,})",
        folded=True,
        keep=lambda value: placeholder(value) or bool(identifier_words(value)),
    ),
    # Command lines. The flags share the anchors of the names they hold.
    rule(
        "cli-password",
        ("pass",),
        0,
        r"(?i:(?<=--)(?:password|passwd|pass))" + _FLAG_VALUE,
        folded=True,
        keep=not_a_flag_value,
    ),
    rule(
        "cli-password",
        ("token",),
        0,
        r"(?i:(?:(?<=--)|(?<=--auth-)|(?<=--access-)|(?<=--api-))token)" + _FLAG_VALUE,
        folded=True,
        keep=not_a_flag_value,
    ),
    rule(
        "cli-password",
        ("secret",),
        0,
        r"(?i:(?:(?<=--)|(?<=--client-))secret)" + _FLAG_VALUE,
        folded=True,
        keep=not_a_flag_value,
    ),
    rule(
        "cli-password",
        ("key",),
        0,
        r"(?i:(?:(?<=--api-)|(?<=--api))key)" + _FLAG_VALUE,
        folded=True,
        keep=not_a_flag_value,
    ),
    rule(
        "cli-password",
        ("pass",),
        0,
        r"(?i:(?<=ssh)pass)(?:"
        + _GAP
        + r"-[a-oq-zA-Z][^\s\"']*)*"
        + _GAP
        + r"-p(?:[ \t]*|"
        + _GAP
        + r")[\"']?(?P<secret>[^\s\"']+)",
        folded=True,
        keep=placeholder,
    ),
    # mysql takes its password glued to -p: `-p name` prompts, `-psecret` does not.
    rule(
        "cli-password",
        ("mysql",),
        0,
        r"(?i:mysql)[\w\-]*"
        + _GAP
        + r"[^\n|;&]{0,200}?"
        + _GAP
        + r"-p(?P<secret>[^\s\"'\-][^\s\"']*)",
        folded=True,
        keep=placeholder,
    ),
    rule(
        "cli-password",
        ("curl",),
        0,
        r"(?i:curl)(?:"
        + _GAP
        + r"[^\n|;&]{0,200}?)?"
        + _GAP
        + r"(?:-u|--user)(?:[ \t=]*|"
        + _GAP
        + r")[\"']?[^\s:\"']*:(?P<secret>[^\s\"']+)",
        folded=True,
        keep=placeholder,
    ),
    # A service account's key id: `"private_key_id": "<40 hex>"` names the key it opens.
    rule(
        "private-key-id",
        ("key",),
        8,
        r"(?i:private_key_id)\\{0,8}[\"']?[ \t]*[:=][ \t]*\\{0,8}[\"']?(?P<secret>[0-9a-fA-F]{40})"
        r"(?![0-9a-fA-F])",
        folded=True,
    ),
    # A password piped into `sudo -S`, a `.netrc` entry, a cookie, a registry's auth.
    rule("cli-password", ("sudo",), 0, None, find=sudo_stdin),
    rule("netrc-password", ("pass",), 0, None, folded=True, find=netrc_password),
    rule("cookie", ("cookie",), 0, None, folded=True, find=cookie_header),
    rule("docker-auth", ("auth",), 0, None, folded=True, find=docker_auth),
    *TOKEN_RULES,
    # "the password was …": told in words, assigned to no name.
    rule("password-in-prose", ("pass",), 0, None, folded=True, find=spoken_password),
    # `.env`-style assignments: the anchors are the words that make a name secret.
    rule(
        "secret-assignment",
        # "pw" finds "pwd" too; "pat" (a personal access token: AZURE_DEVOPS_PAT) counts in
        # upper case only, and "bot" (DISCORD_BOT) on a chat platform only.
        ("pass", "pw", "secret", "token", "key", "credential", "pat", "bot"),
        0,
        None,
        folded=True,
        find=assignment,
    ),
]
#: Kinds that are a token of their own: one starting inside a longer word is not one.
TOKEN_KINDS = wordset(
    "anthropic-key openai-key aws-access-key github-token gitlab-token slack-token"
    " google-api-key stripe-key npm-token huggingface-token sendgrid-key pypi-token"
    " twilio-key jwt " + " ".join(KINDS)
)
#: Each anchor once, with every rule tried where it occurs.
ANCHORS: list[tuple[str, bool, tuple[Rule, ...]]] = [
    (anchor, folded, tuple(r for r in _RULES if anchor in r.anchors and r.folded == folded))
    for anchor, folded in dict.fromkeys((a, r.folded) for r in _RULES for a in r.anchors)
]
