"""Offline titles: a session's most distinctive terms, shaped into a short slug.

No model is needed: the words a person typed first and the files the session touched are
weighed by how rare each word is across the whole index (a word every session holds
names none of them), the best few are put back in the order they were typed, and the
task the first prompt names (fix, refactor, migrate, ...) goes last:
`syncthing-conflict-fix`. The core here is pure: text and rarities in, a title out.

Only indexed text is read, which is redacted before it is stored; a token that still
looks like a key or a hash (long, letters mixed with digits) is never used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath, PurePosixPath, PureWindowsPath

from findsession import cjk
from findsession.query import STOPWORDS

#: Words in a slug (the task word included), and its length in characters.
MAX_WORDS, MIN_WORDS, MAX_CHARS = 5, 2, 60
#: Terms a slug takes beside the task word.
MAX_TERMS = 3
#: A term must score this share of the best term's score to be taken.
KEEP_SHARE = 0.35
#: The first prompt says what the session set out to do; the next two refine it.
PROMPT_WEIGHTS = (3.0, 2.0, 2.0)
LATER_WEIGHT = 1.0
FILE_WEIGHT = 1.5
#: Added to every rarity: in an index of one session every word is in every unit
#: (rarity 0), and where typed first and how often must still name it.
RARITY_FLOOR = 0.1


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: The task a first prompt names, as the word a slug ends with.
TASKS = {
    "fix": "fix",
    "fixing": "fix",
    "broken": "fix",
    "bug": "fix",
    "debug": "debug",
    "debugging": "debug",
    "refactor": "refactor",
    "refactoring": "refactor",
    "migrate": "migration",
    "migrating": "migration",
    "migration": "migration",
    "upgrade": "upgrade",
    "deploy": "deploy",
    "deploying": "deploy",
    "review": "review",
    "rename": "rename",
    "install": "setup",
    "setup": "setup",
    "configure": "setup",
    "optimize": "speedup",
    "optimise": "speedup",
    "slow": "speedup",
    "cleanup": "cleanup",
    "investigate": "investigation",
    "document": "docs",
}
#: What people type around the topic: requests, fillers, pronouns, generic nouns.
FILLER = STOPWORDS | _set(
    "able about above after again all also always another any anything anyway around ask "
    "asked back bad because before believe better big both bring but can cannot cant check "
    "close come could currently decided did didn didnt different does doesn doesnt done don "
    "dont down each either else enough even ever every exactly fine first following found "
    "get gets getting give given goes going gone good got great had happen happened hello "
    "help here hey hi hmm however idea instead just keep kind know last later least left "
    "less let lets like little long look looks lot made make makes many maybe mean might "
    "more most much must need needed needs never new next nice nothing now off okay old "
    "once one only open other others out over own part perhaps please pls point possible "
    "pretty probably put quite rather ready real really right same saw say says said see "
    "seem seems set should show shows showed side since small some something sometimes "
    "soon sort start started still stop stuff such sure take tell than thank thanks that "
    "thats then there theres thing things think thought though through time times today "
    "together told tomorrow too took tried try trying turn under until upon use used using "
    "very via wait want wanted way ways week weeks well went whats while whole within "
    "without wont work works working would wrong yes yesterday yet youre im ive "
    "code file files line lines issue issues problem problems error errors change changes "
    "question implement add adding added create update updated remove write run running "
    "printed morning afternoon evening tonight goodnight sorry ok yeah yep nope"
)
#: Words ending so that are mostly adverbs ("properly", "lately"), save these.
NOT_ADVERBS = _set("apply supply reply family anomaly assembly butterfly daily weekly nightly")
#: File names that say nothing about what a session did.
GENERIC_FILES = _set(
    "index main init __init__ app src lib util utils helpers common base core types "
    "readme license changelog setup config package test tests spec mod"
)

_WORD = re.compile(r"[^\W_]+")
_DROP = re.compile(
    r"\[REDACTED:[^\]]*\]|\b\w+://\S+|\S*[/\\]\S*|\S+@\S+"
    r"|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    re.I,
)
_HEXISH = re.compile(r"^[0-9a-f]{6,}$")
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")


@dataclass(frozen=True, slots=True)
class Material:
    """What a title is made from, as the index holds it (already redacted)."""

    #: What the person typed, in order: the first turns' prompts.
    prompts: list[str]
    #: Files the session's turns touched.
    files: list[str] = field(default_factory=list)
    #: The project folder's name, used only when the session gives too little else.
    project: str | None = None


@dataclass(slots=True)
class Candidate:
    """A term a title may use (as first typed: `conflict` stands for `conflicts` too),
    its weight in the session and where it was first seen."""

    word: str
    weight: float
    first: int


@dataclass(frozen=True, slots=True)
class OfflineTitle:
    """A slug and the distinctive terms it was made from (its `why`)."""

    title: str
    terms: list[str]


def candidates(material: Material) -> dict[str, Candidate]:
    """Each usable term of the prompts and file names, weighted by where it occurs.

    A term counts once per prompt (a pasted log that repeats a word is not more about
    it), more in the first prompts than in later ones.
    """
    found: dict[str, Candidate] = {}
    position = 0
    for n, prompt in enumerate(material.prompts):
        weight = PROMPT_WEIGHTS[n] if n < len(PROMPT_WEIGHTS) else LATER_WEIGHT
        seen: set[str] = set()
        for word in words(prompt):
            position += 1
            key = stem(word)
            if key not in seen:
                seen.add(key)
                found.setdefault(key, Candidate(word, 0.0, position)).weight += weight
    for name in material.files:
        for word in file_words(name):
            position += 1
            found.setdefault(stem(word), Candidate(word, 0.0, position)).weight += FILE_WEIGHT
    return {c.word: c for c in found.values()}


def words(text: str) -> list[str]:
    """The usable words of typed text, lowercased: no paths, links, addresses, redaction
    markers, fillers, hashes or key-like tokens, and no CJK run too long to be one word."""
    out = []
    for match in _WORD.finditer(_DROP.sub(" ", text)):
        word = match.group().lower()
        if usable(word):
            out.append(word)
    return out


def usable(word: str) -> bool:
    if cjk.runs(word):
        return word == "".join(cjk.runs(word)) and 2 <= len(word) <= 8
    if not 3 <= len(word) <= 20 or word[0].isdigit() or word in FILLER or word in TASKS:
        return False
    if word.endswith("ly") and len(word) >= 6 and word not in NOT_ADVERBS:
        return False
    digits = sum(c.isdigit() for c in word)
    if _HEXISH.match(word) and digits:
        return False  # a commit or object id
    return not (digits and (len(word) > 8 or digits * 3 > len(word)))


def file_words(path: str) -> list[str]:
    """The words of a file's name without its extension: `sync_conflict.py` gives
    `sync`, `conflict`; `index.ts` and `README.md` give none."""
    name = (PureWindowsPath if "\\" in path else PurePosixPath)(path).name
    stem = PurePath(name).stem if "." in name.lstrip(".") else name.lstrip(".")
    if stem.lower() in GENERIC_FILES:
        return []
    chunks = re.split(r"[\W_]+", stem)
    parts = [p for chunk in chunks for p in _CAMEL_PART.findall(chunk) or [chunk]]
    return [p.lower() for p in parts if usable(p.lower())]


def task_of(first_prompt: str) -> str | None:
    """The task the first prompt names first, as a slug's last word (`fixing` -> `fix`)."""
    for match in _WORD.finditer(_DROP.sub(" ", first_prompt)):
        task = TASKS.get(match.group().lower())
        if task:
            return task
    return None


def stem(word: str) -> str:
    """A crude stem, enough to keep `conflict` and `conflicts` out of one slug."""
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def offline_title(
    material: Material, found: Mapping[str, Candidate], rarity: Mapping[str, float]
) -> OfflineTitle | None:
    """The slug for a session, or None when it gives nothing to name it by.

    Each term scores its weight times its rarity (inverse document frequency over the
    index); the best `MAX_TERMS` within `KEEP_SHARE` of the best are kept in typed order.
    """
    scored = sorted(
        (
            (c.weight * (max(rarity.get(t, 0.0), 0.0) + RARITY_FLOOR), -c.first, t)
            for t, c in found.items()
        ),
        reverse=True,
    )
    scored = [s for s in scored if s[0] > 0]
    if not scored:
        return None
    best = scored[0][0]
    chosen: list[tuple[int, str]] = []
    stems: set[str] = set()
    for score, neg_first, term in scored:
        if len(chosen) == MAX_TERMS or score < KEEP_SHARE * best:
            break
        if stem(term) not in stems:
            stems.add(stem(term))
            chosen.append((-neg_first, term))
    task = task_of(material.prompts[0]) if material.prompts else None
    if len(chosen) + bool(task) < MIN_WORDS:
        # Too little stands out: the next term down still says more than nothing.
        spare = next(((-nf, t) for _, nf, t in scored if stem(t) not in stems), None)
        if spare:
            chosen.append(spare)
    terms = [t for _, t in sorted(chosen)]
    slug_words = [*terms, *([task] if task else [])]
    project = slug(material.project or "")
    if len(slug_words) < MIN_WORDS and project and project not in slug_words:
        slug_words.insert(0, project)
    title = slug(" ".join(slug_words))
    return OfflineTitle(title, terms) if title else None


def slug(text: str) -> str:
    """`text` as a lowercase slug of at most `MAX_WORDS` words and `MAX_CHARS` characters:
    letters and digits (any script) joined by single hyphens."""
    parts = [p for p in re.split(r"[\W_]+", text.lower()) if p][:MAX_WORDS]
    while parts and len("-".join(parts)) > MAX_CHARS:
        parts.pop()
    return "-".join(parts)
