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
29 MB/s for this package (28.7 before the kinds added in this version). Its keywords are
short and common ("sk", "key", "api"), so a keyword prefilter passes nearly every text,
and 200 narrow provider rules each cost a pass. Its generic rule wants 10+ characters of
entropy over 3.5, so it misses most of what a hostile run found stored in clear (short or
letters-only passwords, `redis://:pw@`, `mysql -pX`, `--password X`, Basic auth), and on
those transcripts it found nothing this package misses. detect-secrets was rejected
earlier at about 1.3 ms a line. The token formats in `rules.py` were checked against
gitleaks' rules for the same providers. Rates and false positives per kind:
docs/reliability.md.

`rules` holds the table of kinds, anchors and patterns (each a `rule.Rule`), `tokens`
the providers' formats added since (Vault, Groq, DigitalOcean, Google OAuth, Telegram,
Azure client secrets, Discord of any first letter); `engine` scans for the anchors,
unions overlapping matches and substitutes `[REDACTED:kind]`; `assignments` finds values
assigned to secret-looking names, `long_tokens` key blocks and JWTs, `commands` what
commands and config files hold (`echo pw | sudo -S`, `.netrc`, `Cookie:`, a Docker
config's `auth`); `not_secret` says which matched values only look secret; `private`
handles `<private>` spans and the marker that keeps a session out.
"""

from __future__ import annotations

from findsession.redact.engine import redact
from findsession.redact.private import PRIVATE_MARKER

__all__ = ["PRIVATE_MARKER", "redact"]
