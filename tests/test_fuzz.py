"""Random and mutated input never makes a parser or the redactor raise.

Bounded in time for every run of the suite: each property has a modest number of
examples and a deadline, and the whole file stays under a minute on two cores.
"""

from __future__ import annotations

import copy
import io
import json
import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from chat_exports import zipped
from conftest import index
from fuzz_seeds import FIXTURES, SEEDS, TEXT_SEEDS, Seed, TextSeed, _form
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pasted_text import QUERIES, SEED_ID, SEED_PROMPT, SEED_REPLY
from transcripts import Transcript, project_dir

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.embeddings.base import Embedder
from findsession.errors import FindsessionError
from findsession.indexing.records import redacted_problem
from findsession.redact import redact
from findsession.search.engine import SearchOptions, search
from findsession.sources import SOURCES, Cursor, Reading
from findsession.sources.claude_code_records import parse_record
from findsession.sources.jsonl import ReadStats, iter_objects
from findsession.storage.sqlite import Store

#: Per example: generous, so a loaded machine does not fail a property on time alone.
DEADLINE = timedelta(seconds=5)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
# Objects shaped like transcript lines, with the keys the parser looks at.
keys = st.sampled_from(
    [
        "type",
        "message",
        "content",
        "role",
        "text",
        "uuid",
        "parentUuid",
        "isSidechain",
        "timestamp",
        "sessionId",
        "cwd",
        "isMeta",
        "toolUseResult",
        "summary",
        "leafUuid",
        "customTitle",
        "aiTitle",
        "agentId",
        "name",
        "input",
        "tool_use_id",
        "id",
        "is_error",
    ]
)
record_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=30)
    | st.sampled_from(
        [
            "user",
            "assistant",
            "summary",
            "tool_use",
            "tool_result",
            "text",
            "thinking",
            "custom-title",
            "ai-title",
            "system",
        ]
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=30,
)


@settings(max_examples=300, deadline=DEADLINE, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, record_like, max_size=8), st.booleans())
def test_parse_record_accepts_any_object(obj: dict, in_subagent: bool) -> None:
    parse_record(obj, 1, in_subagent)


def _real_lines() -> list[bytes]:
    t = Transcript(session_id="fuzz")
    t.prompt("fix the parser").reply("Done.", "Also added a test.")
    t.tool("Bash", {"command": "pytest"}, "3 passed")
    t.title("fuzz")
    return t.render().splitlines(keepends=True)


@settings(max_examples=300, deadline=DEADLINE, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_transcript_bytes_are_read_without_raising(data: st.DataObject) -> None:
    lines = _real_lines()
    blob = bytearray(b"".join(lines))
    for _ in range(data.draw(st.integers(0, 8))):
        at = data.draw(st.integers(0, max(0, len(blob) - 1)))
        action = data.draw(st.sampled_from(["flip", "cut", "insert", "nul"]))
        if action == "flip" and blob:
            blob[at] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del blob[at : at + data.draw(st.integers(1, 40))]
        elif action == "insert":
            blob[at:at] = data.draw(st.binary(max_size=20))
        else:
            blob[at:at] = b"\x00"
    stats = ReadStats(end_offset=0, end_line=0)
    for line, obj in iter_objects(io.BytesIO(bytes(blob)), 0, 0, stats):
        parse_record(obj, line, False)


@settings(max_examples=300, deadline=DEADLINE)
@given(st.binary(max_size=400))
def test_any_bytes_are_a_message_or_a_wire_error(blob: bytes) -> None:
    from findsession.sources.protobuf_wire import Wire, WireError, texts

    try:
        wire = Wire.parse(blob)
    except WireError:
        return
    assert all(isinstance(t, str) for t in texts(wire))


@settings(max_examples=300, deadline=DEADLINE, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_protocol_buffers_are_read_without_raising(data: st.DataObject) -> None:
    """Warp's tasks, one byte changed, cut or inserted at a time: whatever the bytes,
    the conversation gives records and problems, never an exception."""
    from test_source_warp import lantern_tasks

    from findsession.sources.warp_records import Found, conversation_records

    rows = []
    for task_id, blob in lantern_tasks():
        raw = bytearray(blob)
        for _ in range(data.draw(st.integers(0, 6))):
            at = data.draw(st.integers(0, max(0, len(raw) - 1)))
            action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
            if action == "flip" and raw:
                raw[at] = data.draw(st.integers(0, 255))
            elif action == "cut":
                del raw[at : at + data.draw(st.integers(1, 40))]
            else:
                raw[at:at] = data.draw(st.binary(max_size=20))
        rows.append((task_id, bytes(raw)))
    found = Found()
    records = conversation_records("c", 1, "{}", rows, found)
    _well_formed(Reading(records, Cursor(), fresh=True, problems=found.problems))


@settings(max_examples=200, deadline=DEADLINE)
@given(json_values)
def test_any_json_line_is_read_without_raising(value: object) -> None:
    raw = (json.dumps(value) + "\n").encode()
    for line, obj in iter_objects(io.BytesIO(raw), 0, 0, ReadStats(end_offset=0, end_line=0)):
        parse_record(obj, line, False)


@settings(max_examples=300, deadline=DEADLINE)
@given(st.text(max_size=400))
def test_redact_never_raises_and_keeps_plain_text(text: str) -> None:
    out, found = redact(text)
    if not found:
        assert out == text


# Every source's record parser, through the source's own `read`: any JSON value where a
# field is expected (null, "", 0, a list, an object, a huge string, a lone surrogate), a
# field left out, or another part of the same file in its place, gives records and
# reported problems, never an exception. Each seed is one source's valid input
# (`fuzz_seeds`); an example changes one to three of its values and reads it again.

hostile_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
hostile = st.one_of(
    st.sampled_from(
        [None, "", 0, -1, 1.5, True, [], {}, "\ud800", "x" * 100_000, 2**64, [None], {"": None},
         "..", "../..", "a/b", "a\\b", "a\0b"]
    ),
    hostile_leaf,
    st.lists(hostile_leaf, max_size=3),
    st.dictionaries(st.text(max_size=6), hostile_leaf, max_size=3),
)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Where each value in `value` sits, as a tuple of keys and indexes."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found += _paths(item, (*prefix, n))
    return found


def _mutable(values: list, forms: list[str]) -> list[tuple]:
    """Every place a value may change: in a store, the cells of its rows (and inside
    the JSON a cell holds), never its schema."""
    places = []
    for n, (value, form) in enumerate(zip(values, forms, strict=True)):
        for path in _paths(value):
            if form != "db" or (path[0] == "rows" and len(path) >= 4):
                places.append((n, *path))
    return places


def _get(root: object, path: tuple) -> object:
    for key in path:
        root = root[key]  # type: ignore[index]
    return root


def _mutate(values: list, forms: list[str], data: st.DataObject) -> None:
    places = _mutable(values, forms)
    if not places:
        return
    place = data.draw(st.sampled_from(places), label="where")
    holder, key = _get(values, place[:-1]), place[-1]
    how = data.draw(st.sampled_from(["value", "value", "drop", "swap"]), label="how")
    if how == "drop" and isinstance(holder, dict):
        del holder[key]
    elif how == "swap":
        other = data.draw(st.sampled_from(places), label="from")
        holder[key] = copy.deepcopy(_get(values, other))
    else:
        # A copy: `sampled_from` gives the same list or dict every time, and a later
        # change inside it would change the strategy itself (even put it inside itself).
        holder[key] = copy.deepcopy(data.draw(hostile, label="value"))


def _well_formed(reading: Reading) -> None:
    """What the indexer stores must have the types it stores (and be valid UTF-8)."""
    for rec in reading.records:
        if isinstance(rec, Message):
            assert isinstance(rec.kind, MessageKind) and isinstance(rec.line, int)
            assert isinstance(rec.is_error, bool) and isinstance(rec.files, tuple)
            texts = [rec.text, *rec.files]
            optional = (
                rec.uuid, rec.parent_uuid, rec.message_id, rec.timestamp, rec.tool_name,
                rec.tool_id, rec.cwd, rec.git_branch, rec.version, rec.record_session_id,
                rec.session_key, rec.heading,
            )  # fmt: skip
            texts += [v for v in optional if v is not None]
        else:
            assert isinstance(rec, MetaEvent), rec
            assert isinstance(rec.kind, MetaKind) and isinstance(rec.line, int)
            texts = [rec.value, *(v for v in (rec.leaf_uuid, rec.session_key) if v is not None)]
        for text in texts:
            assert isinstance(text, str), (rec, text)
            text.encode("utf-8")
    for problem in reading.problems:
        assert isinstance(problem.line, int) and isinstance(problem.reason, str)
        assert isinstance(problem.detail, str)
        stored = redacted_problem(problem)  # what the indexer stores of it
        (stored.reason + stored.detail).encode("utf-8")
    cursor = reading.cursor
    assert isinstance(cursor.offset, int) and isinstance(cursor.lines, int)
    assert cursor.digest is None or isinstance(cursor.digest, str)
    # As the index keeps it, and as the next read gets it back.
    assert Cursor.restored(cursor.offset, cursor.lines, cursor.stored()) == cursor
    assert all(isinstance(key, str) for key in reading.replaced)


def _read(kind: str, path: Path, may_refuse: bool = False) -> Reading | None:
    """The source's reading of `path`. None when it raised `OSError` and the seed says
    its source may: the one exception a source may raise on purpose (a file it takes
    for one still being written), which the indexer reports and reads again next run."""
    source = SOURCES[kind]
    try:
        sf = source.describe(path)
        with open(path, "rb") as fh:
            return source.read(sf, fh, None)
    except OSError:
        if not may_refuse:
            raise
        return None


class _Trees(dict):
    def __repr__(self) -> str:  # a failing example names its seed, not every folder
        return "trees"


@pytest.fixture(scope="module")
def laid_out(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each seed's tree, laid out once; an example rewrites its mutable files."""
    folders = _Trees()
    for seed in [*SEEDS]:
        folder = tmp_path_factory.mktemp(seed.name)
        seed.tree(folder)
        folders[seed.name] = folder
    return folders


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_every_source_reads_its_valid_seed(seed: Seed, laid_out: dict[str, Path]) -> None:
    """The seed itself gives records: a fuzz example starts from something real."""
    reading = _read(seed.kind, laid_out[seed.name] / seed.target)
    assert reading is not None and reading.records, seed.name
    _well_formed(reading)


#: Examples per seed in every run of the suite; a longer hunt sets the variable (a few
#: hundred finds what a release would meet).
EXAMPLES = int(os.environ.get("FINDSESSION_FUZZ_EXAMPLES", "20"))


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
@settings(
    max_examples=EXAMPLES,
    deadline=DEADLINE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_any_value_in_any_field_of_any_source(
    seed: Seed, laid_out: dict[str, Path], data: st.DataObject
) -> None:
    folder = laid_out[seed.name]
    values = copy.deepcopy(_pristine(seed, folder))
    forms = [seed.form.get(rel, _form(rel)) for rel in seed.mutable]
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        _mutate(values, forms, data)
    seed.write(folder, values)
    reading = _read(seed.kind, folder / seed.target, seed.refuses)
    if reading is not None:
        _well_formed(reading)


_PRISTINE: dict[str, list] = {}


def _pristine(seed: Seed, folder: Path) -> list:
    """The seed's values as laid out, read once (later examples rewrite the files)."""
    if seed.name not in _PRISTINE:
        _PRISTINE[seed.name] = seed.values(folder)
    return _PRISTINE[seed.name]


@pytest.fixture(scope="module")
def text_trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, bytes]]:
    """Each text seed's tree laid out once, with its target's bytes as laid out."""
    trees = _Trees()
    for seed in TEXT_SEEDS:
        folder = tmp_path_factory.mktemp(seed.name)
        seed.tree(folder)
        trees[seed.name] = (folder, (folder / seed.target).read_bytes())
    return trees


@pytest.mark.parametrize("seed", TEXT_SEEDS, ids=[t.name for t in TEXT_SEEDS])
def test_every_text_format_reads_its_seed(
    seed: TextSeed, text_trees: dict[str, tuple[Path, bytes]]
) -> None:
    reading = _read(seed.kind, text_trees[seed.name][0] / seed.read)
    assert reading is not None and reading.records, seed.name
    _well_formed(reading)


#: Lines a text format gives meaning to, dropped into a text seed.
_MARKERS = [
    b"#### ", b"> ", b"```", b"---\n", b"# ", b"## 2026-13-45\n", b"user:", b"assistant:",
    b"A:", b"<user_query>", b"</user_query>", b"---\ntitle: [\n---\n", b"---\n: : :\n---\n",
    b"\x00", b"\xff\xfe", b"\r\n", b"*" * 50, b"[" * 200, b"_**User**_\n",
    b"_**Assistant**_\n", b"_**Agent (model x, mode Agent)**_\n", b"<!-- cursor Session ",
    b"## SpecStory\n", b"<tool-use data-tool-type=", b"</tool-use>", b"<think>",
    b"\n# 2026-12-07 07:01:50.5\n+", b"\n# 1999-99-99 99:99\n", b"+y\n",
]  # fmt: skip


@pytest.mark.parametrize("seed", TEXT_SEEDS, ids=[t.name for t in TEXT_SEEDS])
@settings(
    max_examples=EXAMPLES,
    deadline=DEADLINE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mutated_text_formats_are_read_without_raising(
    seed: TextSeed, text_trees: dict[str, tuple[Path, bytes]], data: st.DataObject
) -> None:
    """Aider's history (and cecli's input history beside it), cursor-agent's text
    transcripts, SpecStory's exports and Markdown notes (front matter included): bytes
    flipped, cut and inserted, and the lines each format reads."""
    folder, pristine = text_trees[seed.name]
    path = folder / seed.target
    blob = bytearray(pristine)
    for _ in range(data.draw(st.integers(1, 6), label="changes")):
        at = data.draw(st.integers(0, len(blob)), label="at")
        how = data.draw(st.sampled_from(["marker", "cut", "bytes", "line"]), label="how")
        if how == "marker":
            blob[at:at] = data.draw(st.sampled_from(_MARKERS), label="marker")
        elif how == "cut":
            del blob[at : at + data.draw(st.integers(1, 200), label="length")]
        elif how == "bytes":
            blob[at:at] = data.draw(st.binary(max_size=30), label="bytes")
        else:
            line = data.draw(st.text(max_size=40), label="line")
            blob[at:at] = b"\n" + line.encode("utf-8", "surrogatepass") + b"\n"
    path.write_bytes(bytes(blob))
    reading = _read(seed.kind, folder / seed.read)
    if reading is not None:
        _well_formed(reading)


#: Crashes the fuzzing found, each kept as found (its smallest form): the seed and the
#: values it changed, a place indexing the seed's values as `_mutable` does.
FOUND = [
    ("gemini-json", [((0, "messages", 3, "thoughts"), -1)]),  # iterated an int
    ("gemini-json", [((0, "messages", 1, "toolCalls", 0, "id"), ["a list"])]),  # set of ids
    ("opencode-tree", [((2, "type"), [])]),  # a part's kind looked up in a set
    ("opencode-db", [((0, "rows", "part", 5, 5, "json", "type"), {"role": "user"})]),
    ("goose-legacy", [((0, 1, "content", 0, "type"), {"id": "x"})]),
    ("goose-db", [((0, "rows", "messages", 1, 3, "json", 1, "type"), {})]),
    ("crush", [((0, "rows", "messages", 0, 3, "json", 0, "type"), [1.5])]),
    ("qwen", [((0, 5, "subtype"), {"type": "user"})]),
    ("pi", [((0, 2, "message", "role"), {"type": "session"})]),
    ("kiro-lines", [((0, 1, "kind"), ["AssistantMessage"])]),
    ("codex-zst", [((0, 23, "payload"), None), ((0, 23, "type"), {"id": "x"})]),
    # A kind's name quoted in its problem, a lone surrogate: storing it raised.
    ("amp", [((0, "messages", 1, "content", 2, "type"), "\ud800")]),
    # Found reading the time parser, not by a draw: year 1 an hour east of UTC falls, in
    # UTC, before any datetime (OverflowError).
    ("gemini-apps", [((0, 0, "time"), "0001-01-01T00:00:00+01:00")]),
    ("opencode-db", [((0, "rows", "part", 4, 5, "json", "type"), "\ud800")]),
    # A record's value used as a folder name: a lone surrogate cannot name a file.
    ("opencode-tree", [((0, "id"), "\ud800")]),
    # An event's kind looked up in a set: a list is no key.
    ("openhands", [((1, "kind"), [])]),
    # An entry's type looked up in a set of the entries that hold a message.
    ("letta", [((0, 0, "type"), {"type": "session", "id": "x"})]),
    # A tool return's outcome looked up in a set of the failed ones.
    ("code-puppy", [((0, "messages", 2, "parts", 0, "outcome"), [])]),
    # A document's name from the manifest opened as a path: a NUL byte, a lone surrogate.
    ("vibe-store", [((1, "runtime_state", "path"), "a\x00b")]),
    ("vibe-store", [((1, "runtime_state", "path"), "\ud800")]),
    # A session's folder kept as it was read: a lone surrogate cannot be stored.
    ("opencode-tree", [((0, "directory"), "\ud800")]),
    ("opencode-tree", [((0, "title"), "\ud800")]),
    # A failed tool's id gathered into a set: a list is no key.
    ("cody", [((0, "rows", "ItemTable", 0, 1, "json", "cody-local-chatHistory-v2",
                "https://sourcegraph.com/-dev", "chat", "Tue, 18 Mar 2025 14:02:40 GMT",
                "interactions", 2, "humanMessage", "contextFiles", 0, "toolId"), [])]),
    # A result's call id kept as the result's: a lone surrogate cannot be stored.
    ("gptme-native", [((0, 9, "call_id"), "\ud800")]),
    # A rollout's own id, as each record's session: a lone surrogate cannot be stored.
    ("trae-cli", [((0, 0, "payload", "id"), "\ud800")]),
    # A reply's calls iterated: an int is none (a hunt); a placement's extensions looked
    # into: a list holds no key (found reading the same code).
    ("devin", [((0, "rows", "message_nodes", 1, 4, "json", "tool_calls"), -1)]),
    ("devin", [((0, "rows", "message_nodes", 4, 6, "json", "extensions"), ["x"])]),
    # A message's own id kept as its records': a lone surrogate cannot be stored.
    ("devin", [((0, "rows", "message_nodes", 1, 4, "json", "message_id"), "\ud800")]),
    # A chat's own id, as each record's session: a lone surrogate cannot be stored.
    ("gemini-json", [((0, "sessionId"), "\ud800")]),
    # A tool output's kind looked up in a set of the failed ones: a list is no key.
    ("grok-cli", [((0, "rows", "messages", 2, 3, "json", "content", 0, "output", "type"), [])]),
    # A summary's leaf, kept to tie it to its message: a lone surrogate cannot be stored.
    ("claude-code", [((0, 6, "leafUuid"), "\ud800")]),
]


@pytest.mark.parametrize("name, changes", FOUND, ids=[f"{n}-{i}" for i, (n, _) in enumerate(FOUND)])
def test_crashes_the_fuzzing_found_stay_fixed(
    name: str, changes: list, laid_out: dict[str, Path]
) -> None:
    seed = next(s for s in SEEDS if s.name == name)
    folder = laid_out[name]
    values = copy.deepcopy(_pristine(seed, folder))
    for place, value in changes:
        _get(values, place[:-1])[place[-1]] = value  # type: ignore[index]
    seed.write(folder, values)
    reading = _read(seed.kind, folder / seed.target)
    assert reading is not None
    _well_formed(reading)


@pytest.fixture(scope="module")
def export_zip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A ChatGPT export as downloaded, and its bytes."""
    path = zipped(FIXTURES / "chatgpt" / "export-2024-05", tmp_path_factory.mktemp("zip") / "e.zip")
    return path, path.read_bytes()


@settings(
    max_examples=EXAMPLES * 3, deadline=DEADLINE, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=st.data())
def test_a_broken_export_zip_is_read_or_refused_in_one_line(
    export_zip: tuple[Path, bytes], data: st.DataObject
) -> None:
    """A chat app's zip with bytes flipped, cut or inserted (a bad download): read for
    what it holds, or refused with an `OSError` the indexer names in one line."""
    path, pristine = export_zip
    blob = bytearray(pristine)
    for _ in range(data.draw(st.integers(1, 4), label="changes")):
        at = data.draw(st.integers(0, len(blob)), label="at")
        how = data.draw(st.sampled_from(["flip", "cut", "bytes"]), label="how")
        if how == "flip" and at < len(blob):
            blob[at] = data.draw(st.integers(0, 255), label="byte")
        elif how == "cut":
            del blob[at : at + data.draw(st.integers(1, 4000), label="length")]
        else:
            blob[at:at] = data.draw(st.binary(max_size=30), label="bytes")
    path.write_bytes(bytes(blob))
    reading = _read("chatgpt", path, may_refuse=True)
    if reading is not None:
        _well_formed(reading)


def test_a_zip_member_whose_name_is_gone_is_passed_over(export_zip: tuple[Path, bytes]) -> None:
    """Found by the fuzzing: a zero byte at the start of a member's name in the zip's
    directory (one byte of a bad download) gave a member named "" (`zipfile` ends a name
    at its first zero), and asking whether it was a folder raised `IndexError`, which
    ended the file's read as a crash. A nameless member is no file the export is read
    from: the conversations are still read."""
    path, pristine = export_zip
    blob = bytearray(pristine)
    blob[blob.rindex(b"shared_conversations.json")] = 0  # its name in the directory
    path.write_bytes(bytes(blob))
    reading = _read("chatgpt", path, may_refuse=True)
    assert reading is not None and reading.records
    _well_formed(reading)


def test_a_zip_of_a_version_not_read_here_is_refused(export_zip: tuple[Path, bytes]) -> None:
    """Found by the fuzzing: a central directory entry asking for zip version 6.4 made
    `zipfile` raise `NotImplementedError`, which ended the file's read as a crash."""
    path, pristine = export_zip
    blob = bytearray(pristine)
    entry = blob.index(b"PK\x01\x02")
    blob[entry + 6] = 64  # the version needed to extract
    path.write_bytes(bytes(blob))
    with pytest.raises(OSError, match="not a readable zip"):
        _read("chatgpt", path)


@pytest.fixture(scope="module")
def searchable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A small real index to search: English, Chinese, a path and an id to find."""
    root = tmp_path_factory.mktemp("searchable")
    projects = root / "projects"
    t = Transcript(session_id=SEED_ID)
    t.prompt(SEED_PROMPT).reply(SEED_REPLY)
    t.write(project_dir(projects, "/home/dev/app"))
    with Store.open(root / "index.db") as store:
        index(store, projects)
        yield store


@settings(
    max_examples=EXAMPLES * 3, deadline=DEADLINE, suppress_health_check=[HealthCheck.too_slow]
)
@given(text=QUERIES, mode=st.sampled_from(["keyword", "hybrid"]), raw=st.booleans())
def test_any_text_is_a_search_or_refused_in_one_line(
    searchable: Store, embedder: Embedder, text: str, mode: str, raw: bool
) -> None:
    """"Any free text is safe": whatever is typed or pasted (the MCP tool and the page
    pass it on as given) is searched, or refused as a `FindsessionError` with a message
    of one line; `--raw` FTS5 syntax that does not parse is such a refusal."""
    opts = SearchOptions(mode=mode, raw=raw)  # type: ignore[arg-type]
    try:
        response = search(searchable, text, opts, embedder=lambda: embedder)
    except FindsessionError as exc:
        assert str(exc).strip() and "\n" not in str(exc).strip(), repr(exc)
        return
    for hit in response.hits:
        assert hit.session.id
    if not raw and "signing" in text.split() and mode == "keyword":
        assert response.hits, text
