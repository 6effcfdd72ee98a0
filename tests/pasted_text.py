"""What people paste into a search box, as a hypothesis strategy: FTS5's operators and
syntax, quotes, a path, an id, time words, CJK, control and invisible characters, and
any text at all. Shared by the property tests of search and of each backend's keyword
query."""

from __future__ import annotations

from hypothesis import strategies as st

#: The one session the strategies' pieces are about (`seed_text`).
SEED_ID = "7c1e4a52-0b1d-4c55-9d7e-5f1f4d2a9b10"
SEED_PROMPT = "rotate the signing keys in src/auth/keys.py"
SEED_REPLY = "Done: 修复了登录问题, tests pass."

PIECES = [
    '"', "'", "-", "*", "(", ")", ":", "^", "+", "{", "}", "[", "]", "\\", "#", ",", ";",
    "AND", "OR", "NOT", "NEAR", "NEAR(", "col:umn", "signing", "keys", "src/auth/keys.py",
    "7c1e4a52", "7c1e4a52-0b1d", "last week", "in March", "上周", "登录", "修复", "\x00",
    "\t", "\n", "\u200b", "\ufeff", "é", "🙂",
]  # fmt: skip

QUERIES = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(PIECES), max_size=8).map(" ".join),
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
)
