"""Secrets in the shapes of commands and config files rather than of a token: a password
piped into `sudo -S`, a `.netrc` entry, a `Cookie:` header, a Docker config's `auth`.

Each is a function a rule calls where its anchor occurs (`rules`): the secret comes
before the anchor (`echo pw | sudo -S`) or its shape spans lines (`.netrc`), which a
pattern matched at the anchor cannot say.
"""

from __future__ import annotations

import re

from findsession.redact.not_secret import not_basic_credentials, placeholder, placeholder_word

#: `echo pw |`, `echo "pw" |`, `printf '%s\n' pw |` just before `sudo`.
_PIPED = re.compile(
    r"""(?:echo(?:[ \t]+-[neE]+)*|printf(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|%\S*))?)[ \t]+"""
    r"""(?P<q>["']?)(?P<secret>[^\s"'|;&]+)(?P=q)[ \t]*\|[ \t]*$"""
)
#: sudo's options (those that take a value with it), before the command it runs.
_OPTIONS = re.compile(
    r"sudo(?P<options>(?:[ \t]+-[ugpCDhrtTU][ \t]+[^\s-]\S*|[ \t]+-{1,2}[A-Za-z][\w\-]*(?:=\S+)?)*)"
)
#: `sudo -S … <<< pw`: the password as a here-string.
_HERE_STRING = re.compile(r"""<<<[ \t]*(?P<q>["']?)(?P<secret>[^\s"'|;&]+)(?P=q)""")
_LINE_REACH = 300


def sudo_stdin(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """The password `sudo -S` reads from its input: echoed into it, or a here-string."""
    options = _OPTIONS.match(text, at, min(len(text), at + _LINE_REACH))
    said = options.group("options").split() if options else []
    if not any(o == "--stdin" or (o[:2] != "--" and "S" in o[1:]) for o in said):
        return None
    line_start = max(text.rfind("\n", max(0, at - _LINE_REACH), at) + 1, at - _LINE_REACH)
    piped = _PIPED.search(text, line_start, at)
    if piped and not placeholder(piped.group("secret")):
        return piped.start("secret"), piped.end("secret"), "cli-password"
    line_end = text.find("\n", at, at + _LINE_REACH)
    here = _HERE_STRING.search(text, at, line_end if line_end >= 0 else at + _LINE_REACH)
    if here and not placeholder(here.group("secret")):
        return here.start("secret"), here.end("secret"), "cli-password"
    return None


#: What comes before a `.netrc` password: its entry's `machine host` (a host name with a
#: dot, or localhost) or `default`, then maybe a login and an account, on one line or
#: several (their line breaks escaped too, as JSON keeps them). Prose that says "machine
#: learning" or "login page" before a password is not.
_NETRC_BEFORE = re.compile(
    r"(?:machine[ \t]+(?:[\w\-]+\.[\w.\-]+|localhost)|default)"
    r"(?:(?:\s|\\+[nrt])+(?:login|account)[ \t]+[^\s\\]+){0,2}(?:\s|\\+[nrt])+$"
)
_NETRC_PASSWORD = re.compile(r"password[ \t]+(?P<secret>[^\s\"'\\]+)")
_NETRC_REACH = 200


def netrc_password(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """A `.netrc` password: `password X` right after a machine, login or account."""
    if text[at : at + 8] != "password":
        return None
    if at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_-"):
        return None
    if not _NETRC_BEFORE.search(text, max(0, at - _NETRC_REACH), at):
        return None
    match = _NETRC_PASSWORD.match(text, at)
    if not match or placeholder_word(match.group("secret")):
        return None
    return match.start("secret"), match.end("secret"), "netrc-password"


#: A cookie header's value: `name=value` pairs up to the end of the line or its quote.
_COOKIE = re.compile(
    r"(?i:cookie)\\{0,8}[\"']?[ \t]*:[ \t]*(?P<secret>[!#$%&*+.^`|~\w\-]+=[^\r\n\"'\\]+)"
)


_COOKIE_VALUES = re.compile(r"=([^;,]*)")


def cookie_header(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """A `Cookie:` or `Set-Cookie:` header's value (a browser's session is in it)."""
    if at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_"):
        return None
    match = _COOKIE.match(text, at)
    if not match or placeholder(match.group("secret")):
        return None
    value = match.group("secret").rstrip()
    if not any(len(v.strip()) >= 8 for v in _COOKIE_VALUES.findall(value)):
        return None  # `theme=dark; Path=/`: no value long enough to be a session
    return match.start("secret"), match.start("secret") + len(value), "cookie"


#: A Docker config's `"auth": "<base64 of user:password>"`, JSON-escaped or not.
_DOCKER_AUTH = re.compile(
    r"auth\\{0,8}\"[ \t]*:[ \t]*\\{0,8}\"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"
)


def docker_auth(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """The credentials of a registry in a Docker (or Podman) auth file."""
    if at == 0 or text[at - 1] != '"' or text[at : at + 4] != "auth":
        return None
    match = _DOCKER_AUTH.match(text, at)
    if not match or not_basic_credentials(match.group("secret").rstrip("=")):
        return None
    return match.start("secret"), match.end("secret"), "docker-auth"
