"""What aider sends to the model on the person's behalf, told from what they typed.

Aider logs a message it sends for the person as `####` lines, as it logs what was typed
(aider/io.py `user_input`, called by `Coder.run(with_message=…)`): in architect mode the
architect's reply, again, for the editor model (aider/coders/architect_coder.py, without
the thinking logged before it); after `/code X`, `/ask X`, `/architect X` or
`/context X`, the `X` again; after `/help X` the question with the docs found for it;
after `/ok` its fixed request. Those blocks repeat what came just before them, and are
the harness's, not prompts (`.aider.input.history`, where aider keeps what was typed,
has none of them). So is the answer aider gives itself to the rest of a group of
questions once "(A)ll" or "(S)kip all" was typed (aider/io.py `confirm_ask`): the
question and `all` or `skip`, logged as a `####` line.
"""

from __future__ import annotations

import hashlib
import re

#: Commands whose argument is a message to the model: it can name the session.
ASKING = ("/ask", "/code", "/architect", "/context", "/copy-context")
#: What `/ok` sends (aider/commands.py `cmd_ok`), and how `/help X` begins what it sends
#: (aider/help.py `Help.ask`).
OK_REQUEST = "Ok, please go ahead and make those changes."
HELP_QUESTION = "# Question: "
#: A question of a group answered by aider itself: its options always offer "(S)kip all".
GROUP_ANSWER = re.compile(r"\S.* \(Y\)es/\(N\)o(?:/\(A\)ll)?/\(S\)kip all\b.*\]: (?:all|skip)")


class Said:
    """A digest of a text as aider compares the two copies of an architect's reply: each
    line without trailing whitespace, no blank lines at either end, the first line without
    its indent (`ai_output` logs the reply stripped, `user_input` every line of it).
    Streamed: a block of any length costs a hash, not its text."""

    def __init__(self) -> None:
        self.digest = hashlib.blake2b(digest_size=16)
        self.started = False
        self.blanks = 0

    def add(self, line: str) -> None:
        line = line.rstrip()
        if not line:
            self.blanks += self.started
            return
        if self.started:
            self.digest.update(b"\n" * (self.blanks + 1))
        else:
            line, self.started = line.lstrip(), True
        self.digest.update(line.encode("utf-8", "replace"))
        self.blanks = 0

    def same(self, other: Said) -> bool:
        return self.started and other.started and self.digest.digest() == other.digest.digest()


def asking(prompt: str) -> str | None:
    """What a prompt asks, if anything: itself, or the message after an asking command."""
    if not prompt.startswith(("/", "!")):
        return prompt
    command, _, rest = prompt.partition(" ")
    if command.lower() in ASKING and rest.strip():
        return rest.strip()
    return None


def with_message(prompt: str) -> tuple[str, str] | None:
    """`(command, message)` of a prompt that is a command with an argument; aider sends
    the argument of some (`/code X`) as a message of its own, logged again."""
    if not prompt.startswith("/"):
        return None
    parts = prompt.split(None, 1)
    return (parts[0].lower(), parts[1].strip()) if len(parts) == 2 else (parts[0].lower(), "")
