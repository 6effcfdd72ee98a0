"""Providers' tokens that a hostile run found stored in clear beside the ones `rules`
had: Vault, Groq, DigitalOcean, Google's OAuth access tokens, Tavily, Telegram bots, Azure
client secrets, and Discord bot tokens of any first letter (GitLab's runner and deploy tokens
share `rules`' GitLab anchor).

Each format as its provider documents it (checked against gitleaks' rules for the same
providers). A token glued to a longer word is none (`rules.TOKEN_KINDS`). Each anchor
costs a pass over every text, so a provider's variants share one (`hv` for Vault's three
kinds, `_v1_` for DigitalOcean's).
"""

from __future__ import annotations

import re

from findsession.redact.rule import Rule, rule

#: Characters a token of these formats is made of: a match must not run on into more.
_TOKEN_END = r"(?![A-Za-z0-9_\-])"

TOKEN_RULES: list[Rule] = [
    # Vault's service, batch and recovery tokens (`hvs.CAES…`, 90+ since Vault 1.10).
    rule("vault-token", ("hv",), 0, r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    rule("groq-key", ("gsk_",), 0, r"gsk_[A-Za-z0-9]{48,}" + _TOKEN_END),
    # DigitalOcean: personal access, OAuth and refresh tokens.
    rule(
        "digitalocean-token",
        ("_v1_",),
        3,
        r"do[opr]_v1_[a-f0-9]{64}" + _TOKEN_END,
    ),
    rule("google-oauth-token", ("ya29.",), 0, r"ya29\.[A-Za-z0-9_\-]{20,}"),
    # Tavily's search API keys (`tvly-…`, `tvly-dev-…`, `tvly-prod-…`): people paste them
    # into prompts to set up its MCP server.
    rule("tavily-key", ("tvly-",), 0, r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{20,}" + _TOKEN_END),
    # An Azure AD client secret: three characters, a digit, `Q~`, 31 to 34 more.
    rule(
        "azure-client-secret",
        ("Q~",),
        4,
        r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}"
        r"(?![A-Za-z0-9_~.\-])",
    ),
]

#: A Telegram bot's token: the bot's id, a colon, `A` and 34 more (`123456:AAH…`).
_TELEGRAM = re.compile(r"[0-9]{5,16}:A[A-Za-z0-9_\-]{34}(?![A-Za-z0-9_\-])")
_TELEGRAM_BACK = 16


def telegram_token(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """The token whose colon is at `at`: its id's digits run back from it, after a word
    boundary or `bot` (the Bot API's URLs: `/bot123456:AAH…/sendMessage`)."""
    start = at
    while start > 0 and at - start < _TELEGRAM_BACK and text[start - 1].isdigit():
        start -= 1
    if at - start < 5:
        return None
    before = text[start - 3 : start] if start >= 3 else ""
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_") and before != "bot":
        return None
    match = _TELEGRAM.match(text, start)
    return (start, match.end(), "telegram-token") if match else None


TOKEN_RULES.append(rule("telegram-token", (":A",), 0, None, find=telegram_token))

#: A Discord bot token has no literal prefix (it starts with the bot's id in base64), so
#: it is searched for only in texts that say "discord", as gitleaks does. Its first part
#: is 24 or more characters, whatever the first letter (M, N and O are the ids of today).
DISCORD_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{24,36}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}"
    r"(?![A-Za-z0-9_\-])"
)
#: Kinds of this module that are a token of their own (see `rules.TOKEN_KINDS`).
KINDS = ("vault-token", "groq-key", "digitalocean-token", "google-oauth-token", "tavily-key")
