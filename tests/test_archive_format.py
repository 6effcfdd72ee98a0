"""The archive's format and its two writers, on real files: what a read adds (a half
written line kept provisionally, a run rolled back, a gap caught up), what is never
copied (another agent's database), every way a copy can be damaged found before a byte
is written back, and the writing back refusing every target but a free name inside the
agent's folder reached through real folders.
"""

from __future__ import annotations

import os
import sqlite3
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from findsession.archive import frames
from findsession.archive.folder import ArchiveError, key_of
from findsession.archive.keeper import Archive
from findsession.archive.restoring import RestoreRefused, write_back

KIND = "claude-code"


def line(n: int, words: str = "the cold frame lid") -> bytes:
    return f'{{"n":{n},"sessionId":"s-1","text":"{words} {n}"}}\n'.encode()


def keep(archive: Archive, path: Path, start: int, committed: int | None = None) -> int:
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        return archive.keep(
            str(path), KIND, fh.fileno(), start, size if committed is None else committed
        )


def held(archive: Archive, path: Path) -> bytes:
    return b"".join(archive.contents(str(path)))


@pytest.fixture
def archive(tmp_path: Path) -> Archive:
    return Archive(tmp_path / "index.db", frozenset({KIND}))


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    folder = tmp_path / "agent" / "project"
    folder.mkdir(parents=True)
    return folder / "s-1.jsonl"


def test_a_half_written_line_is_kept_until_the_next_read_replaces_it(
    archive: Archive, transcript: Path
) -> None:
    whole = b"".join(line(n) for n in range(200))
    transcript.write_bytes(whole + b'{"n":200,"text":"the cold')
    keep(archive, transcript, 0, len(whole))
    assert held(archive, transcript) == transcript.read_bytes()  # as it was when read
    transcript.write_bytes(whole + line(200) + line(201))
    keep(archive, transcript, len(whole))
    assert held(archive, transcript) == transcript.read_bytes()
    layout = scan(archive, transcript)
    assert [s.provisional for s in layout.spans] == [False, False]


def test_a_run_rolled_back_after_its_copy_was_written_is_written_again(
    archive: Archive, transcript: Path
) -> None:
    first = b"".join(line(n) for n in range(50))
    transcript.write_bytes(first)
    keep(archive, transcript, 0)
    transcript.write_bytes(first + b"".join(line(n) for n in range(50, 60)))
    keep(archive, transcript, len(first))  # the index rolled this read back...
    transcript.write_bytes(first + b"".join(line(n, "the potting shed") for n in range(50, 70)))
    keep(archive, transcript, len(first))  # ...and reads from its old cursor again
    assert held(archive, transcript) == transcript.read_bytes()


def test_a_copy_that_fell_behind_catches_up_from_the_transcript(
    archive: Archive, transcript: Path
) -> None:
    transcript.write_bytes(b"".join(line(n) for n in range(30)))
    keep(archive, transcript, 0)
    transcript.write_bytes(b"".join(line(n) for n in range(60)))
    middle = len(b"".join(line(n) for n in range(45)))
    keep(archive, transcript, middle)  # a read the archive missed ended at `middle`
    assert held(archive, transcript) == transcript.read_bytes()


def test_a_read_from_the_top_replaces_the_whole_copy(archive: Archive, transcript: Path) -> None:
    transcript.write_bytes(b"".join(line(n) for n in range(30)))
    keep(archive, transcript, 0)
    transcript.write_bytes(b"".join(line(n, "rewritten in place") for n in range(10)))
    keep(archive, transcript, 0)
    assert held(archive, transcript) == transcript.read_bytes()


def test_another_agents_database_is_never_copied(archive: Archive, tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    with sqlite3.connect(store) as db:
        db.execute("CREATE TABLE chats (text TEXT)")
        db.execute("INSERT INTO chats VALUES ('the cold frame lid')")
    db.close()
    assert keep(archive, store, 0) == 0
    assert archive.keys() == set()


def test_a_source_the_archive_does_not_keep_is_not_copied(tmp_path: Path, transcript: Path) -> None:
    transcript.write_bytes(line(1))
    nothing = Archive(tmp_path / "index.db", frozenset({"codex"}))
    assert keep(nothing, transcript, 0) == 0 and not nothing.path.exists()


def scan(archive: Archive, path: Path) -> frames.Layout:
    fd = os.open(archive.folder.file(key_of(str(path))), os.O_RDONLY)
    try:
        layout = frames.scan(fd)
    finally:
        os.close(fd)
    assert layout is not None
    return layout


def rewrite(archive: Archive, path: Path, at: int, data: bytes) -> None:
    copy = archive.folder.file(key_of(str(path)))
    raw = bytearray(copy.read_bytes())
    raw[at : at + len(data)] = data
    copy.write_bytes(bytes(raw))


def two_spans(archive: Archive, transcript: Path) -> frames.Layout:
    first = b"".join(line(n) for n in range(100))
    transcript.write_bytes(first)
    keep(archive, transcript, 0)
    transcript.write_bytes(first + b"".join(line(n) for n in range(100, 140)))
    keep(archive, transcript, len(first))
    return scan(archive, transcript)


def test_a_frame_whose_bytes_changed_is_found_by_its_checksum(
    archive: Archive, transcript: Path
) -> None:
    """A flipped bit early in a long frame decodes to other bytes of the same length,
    far before the last 32 KiB its record's digest covers: zstd's checksum finds it."""
    transcript.write_bytes(b"".join(line(n) for n in range(4000)))
    keep(archive, transcript, 0)
    (span,) = scan(archive, transcript).spans
    at = span.after - span.frame + 60
    copy = archive.folder.file(key_of(str(transcript)))
    rewrite(archive, transcript, at, bytes([copy.read_bytes()[at] ^ 0x01]))
    with pytest.raises(ArchiveError, match="does not decompress"):
        held(archive, transcript)


def test_a_transcript_changed_before_the_reads_start_is_archived_whole_again(
    archive: Archive, transcript: Path
) -> None:
    """The bytes before the cursor changed, their length kept (a reader that cannot tell,
    as a document read whole gives no offset): the copy is not a mixture of both."""
    first = b"".join(line(n) for n in range(100))
    transcript.write_bytes(first)
    keep(archive, transcript, 0)
    changed = first.replace(b"cold frame", b"warm frame")
    transcript.write_bytes(changed + line(100))
    keep(archive, transcript, len(first))
    assert held(archive, transcript) == changed + line(100)
    assert len(scan(archive, transcript).spans) == 1


def test_a_record_whose_tail_does_not_match_its_bytes_is_found(
    archive: Archive, transcript: Path
) -> None:
    layout = two_spans(archive, transcript)
    tail_at = layout.spans[0].at + 8 + struct.calcsize("<QQQIB")
    rewrite(archive, transcript, tail_at, bytes(8))
    with pytest.raises(ArchiveError, match="are not the bytes that were archived"):
        held(archive, transcript)


def test_bytes_past_the_last_record_or_a_copy_cut_short_are_found(
    archive: Archive, transcript: Path
) -> None:
    layout = two_spans(archive, transcript)
    copy = archive.folder.file(key_of(str(transcript)))
    whole = copy.read_bytes()
    copy.write_bytes(whole + b"tail")
    with pytest.raises(ArchiveError, match="no record accounts for"):
        held(archive, transcript)
    copy.write_bytes(whole[: layout.spans[-1].after - 5])
    with pytest.raises(ArchiveError, match="no record accounts for"):
        held(archive, transcript)
    # The next read finds where the whole records end and writes on from there.
    keep(archive, transcript, layout.spans[-1].start)
    assert held(archive, transcript) == transcript.read_bytes()


def test_a_copy_of_another_transcript_under_its_name_is_refused(
    archive: Archive, transcript: Path
) -> None:
    two_spans(archive, transcript)
    other = transcript.with_name("s-2.jsonl")
    os.rename(archive.folder.file(key_of(str(transcript))), archive.folder.file(key_of(str(other))))
    with pytest.raises(ArchiveError, match="not the copy of this transcript"):
        held(archive, other)


def test_the_archive_is_readable_by_its_owner_alone(archive: Archive, transcript: Path) -> None:
    transcript.write_bytes(line(1))
    os.chmod(archive.path.parent, 0o755)
    keep(archive, transcript, 0)
    assert archive.path.stat().st_mode & 0o777 == 0o700
    assert archive.folder.file(key_of(str(transcript))).stat().st_mode & 0o777 == 0o600
    os.chmod(archive.path, 0o755)
    keep(archive, transcript, 0)
    assert archive.path.stat().st_mode & 0o777 == 0o700


# -- writing back ----------------------------------------------------------------------


def test_a_transcript_is_written_back_into_missing_folders_never_over_a_file(
    archive: Archive, transcript: Path, tmp_path: Path
) -> None:
    transcript.write_bytes(b"".join(line(n) for n in range(20)))
    keep(archive, transcript, 0)
    original = transcript.read_bytes()
    transcript.unlink()
    transcript.parent.rmdir()
    agent = tmp_path / "agent"
    assert archive.restore(str(transcript), agent) == len(original)
    assert transcript.read_bytes() == original
    assert transcript.parent.stat().st_mode & 0o777 == 0o700
    transcript.write_bytes(b"the person's own\n")
    with pytest.raises(RestoreRefused, match="exists: nothing is written over it"):
        archive.restore(str(transcript), agent)
    transcript.unlink()
    transcript.symlink_to(tmp_path / "nowhere")  # a dangling link is a name taken too
    with pytest.raises(RestoreRefused, match="exists"):
        archive.restore(str(transcript), agent)
    assert not (tmp_path / "nowhere").exists()
    assert [p.name for p in transcript.parent.iterdir()] == [transcript.name]


def test_nothing_is_written_outside_the_agents_folder_or_through_a_link(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "project").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    for target in (
        str(outside / "s.jsonl"),
        str(agent / ".." / "outside" / "s.jsonl"),
        "agent/project/s.jsonl",
        str(agent),
    ):
        with pytest.raises(RestoreRefused, match="is not inside"):
            write_back([b"x"], target, agent)
    (agent / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(RestoreRefused, match="symbolic link"):
        write_back([b"x"], str(agent / "linked" / "s.jsonl"), agent)
    with pytest.raises(RestoreRefused, match="symbolic link"):
        write_back([b"x"], str(agent / "linked" / "deeper" / "s.jsonl"), agent)
    assert list(outside.iterdir()) == []
    # The agent's folder itself may be a link (a dotfiles set-up): the person made it.
    dotfiles = tmp_path / "dotfiles"
    (agent).rename(dotfiles)
    agent.symlink_to(dotfiles, target_is_directory=True)
    assert write_back([b"ok\n"], str(agent / "project" / "s.jsonl"), agent) == 3
    assert (dotfiles / "project" / "s.jsonl").read_bytes() == b"ok\n"


def test_a_check_that_fails_midway_leaves_nothing_behind(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "project").mkdir(parents=True)

    def damaged() -> object:
        yield b"the first frame\n"
        raise ArchiveError("the frame of bytes 16-32 does not decompress")

    with pytest.raises(ArchiveError, match="does not decompress"):
        write_back(damaged(), str(agent / "project" / "s.jsonl"), agent)  # type: ignore[arg-type]
    assert list((agent / "project").iterdir()) == []


# -- any sequence of reads -------------------------------------------------------------


appends = st.lists(
    st.tuples(st.integers(0, 40), st.booleans(), st.booleans()), min_size=1, max_size=12
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=appends)
@example(steps=[(3, True, False), (2, False, False)])  # a half-written line completed
@example(steps=[(5, False, False), (0, True, False), (0, False, True)])  # then read from the top
@example(steps=[(0, True, False), (0, True, False)])  # nothing whole yet, twice
def test_any_sequence_of_reads_keeps_the_transcript_as_last_read(
    steps: list[tuple[int, bool, bool]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each step appends `n` lines (the last one maybe half written), and the source's
    cursor stops before a half-written line, or is read from the top (`fresh`)."""
    folder = tmp_path_factory.mktemp("reads")
    archive = Archive(folder / "index.db", frozenset({KIND}))
    path = folder / "s.jsonl"
    data, cursor, count = b"", 0, 0
    for n, half, fresh in steps:
        whole = data[:cursor] if len(data) > cursor else data
        added = b"".join(line(count + i) for i in range(n))
        count += n
        data = whole + added + (b'{"n":' if half else b"")
        path.write_bytes(data)
        end = len(whole + added)
        keep(archive, path, 0 if fresh else cursor, end)
        cursor = end
        assert held(archive, path) == data


def test_an_appended_turn_compresses_against_the_bytes_before_it(
    archive: Archive, transcript: Path
) -> None:
    """A turn alone compresses to about half its size; against the session before it
    (the same ids, paths and field names) to a seventh, record included."""

    def turn(n: int) -> bytes:
        return (
            f'{{"parentUuid":"u{n - 1}","cwd":"/home/dev/code/greenhouse","sessionId":'
            f'"c1eaa0e0-1111-4222-8333-000000000001","version":"2.1.30","type":"user",'
            f'"message":{{"role":"user","content":"log humidity reading {n}"}},"uuid":"u{n}"}}\n'
        ).encode()

    before = b"".join(turn(n) for n in range(40))
    transcript.write_bytes(before)
    keep(archive, transcript, 0)
    added = turn(40) + turn(41)
    transcript.write_bytes(before + added)
    assert keep(archive, transcript, len(before)) < len(added) / 4
    assert held(archive, transcript) == before + added
