"""What a transcript becomes: messages, turns and sessions, format-free.

Parsers turn an agent's on-disk format into `Message` and `MetaEvent` records; nothing
after the parser knows which agent wrote them. The indexer groups messages into `Turn`s,
and the store keeps them as searchable units of a `Session`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


class MessageKind(StrEnum):
    """What a message is, which decides where its text goes in the index."""

    PROMPT = "prompt"  # typed by the person (or, in a subagent, by the parent agent)
    #: Typed by the person into a turn already running (a prompt queued while the agent
    #: worked, words sent beside a tool's result): it steers that turn and opens none.
    STEER = "steer"
    REPLY = "reply"  # assistant text shown to the person
    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_OUTPUT = "tool_output"
    COMPACT_SUMMARY = "compact_summary"  # "This session is being continued ..."
    HARNESS = "harness"  # isMeta lines, slash-command wrappers, interruptions
    SECTION = "section"  # one section of a note (a doc, a journal entry, a memory file)


#: A subagent's `agent_type` when all it did was restate its parent: a compaction agent,
#: which read the conversation so far and wrote its summary. Its words are its parent's
#: work said again, so a search counts them for the parent: the session found is the one
#: the person worked in, never the harness's summary of it beside it.
COMPACTION_AGENT = "compaction"


class MetaKind(StrEnum):
    """Session-level facts that are not part of the conversation."""

    CUSTOM_TITLE = "custom_title"
    AI_TITLE = "ai_title"
    LAST_PROMPT = "last_prompt"
    SUMMARY = "summary"  # trusted only if its leaf_uuid is a message of the session
    #: The session_key of the session that started this one, in a file of sibling
    #: sessions (a database store keeps subagents as sessions with a parent column).
    PARENT = "parent"
    #: When the app last changed the conversation, as an ISO time: in a file of sibling
    #: sessions that may hold an older copy of one another file holds newer (an older
    #: export of a chat app's account), the newer copy stays.
    REVISION = "revision"
    #: The ids of sessions this one started whose own files name no parent (a
    #: subagent's history that only its parent's tool result names), space-separated:
    #: a subagent indexed before that result was saved is linked when it is.
    CHILDREN = "children"


@dataclass(frozen=True, slots=True)
class Message:
    """One normalised conversation record, in file order.

    `session_key` is None for the file's own session; a parser sets it when a file holds
    another session's lines too (Claude Code 1.0 wrote subagent lines inline). `heading`
    is set only on a `SECTION`: where the section sits in its document
    (`guide.md › Syncthing › Restart`), shown as the title of its search unit.
    """

    kind: MessageKind
    text: str
    line: int
    uuid: str | None = None
    parent_uuid: str | None = None
    message_id: str | None = None
    timestamp: str | None = None
    tool_name: str | None = None
    tool_id: str | None = None
    files: tuple[str, ...] = ()
    is_error: bool = False
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    record_session_id: str | None = None
    session_key: str | None = None
    heading: str | None = None


@dataclass(frozen=True, slots=True)
class MetaEvent:
    """A title, last prompt or summary record; the last one of each kind wins."""

    kind: MetaKind
    value: str
    line: int
    leaf_uuid: str | None = None
    session_key: str | None = None


@dataclass(frozen=True, slots=True)
class Root:
    """A folder (or file) to index, and the source format found there."""

    path: Path
    source: str


@dataclass(frozen=True, slots=True)
class Problem:
    """A line that could not be used, kept so `status` and `index -v` can show it."""

    line: int
    reason: str
    detail: str = ""


@dataclass(slots=True)
class Turn:
    """A typed prompt and everything the agent did to answer it, or one section of a note.

    `tools_text` holds thinking, tool inputs and tool outputs, already capped, so that it
    can be searched without drowning the conversation. `heading` is set only for a note's
    section (its text is the prompt: the person's own words), which is indexed as a unit
    of kind `doc` titled by the heading.
    """

    ordinal: int
    prompt: str
    reply: str
    tools_text: str
    timestamp: str | None
    end_timestamp: str | None
    tool_names: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    first_line: int = 0
    last_line: int = 0
    heading: str | None = None


@dataclass(slots=True)
class Session:
    """What the index knows about one session."""

    @property
    def copy_key(self) -> tuple[str, str] | None:
        """What a transcript's copies pushed from several machines share (None in a
        local index, or for a session indexed straight into the server)."""
        if self.machine and self.owner and self.local_id:
            return (self.owner, self.local_id)
        return None

    id: str
    source: str
    file_path: str | None
    cwd: str | None
    title: str | None
    first_ts: str | None
    last_ts: str | None
    git_branch: str | None = None
    version: str | None = None
    parent_id: str | None = None
    is_subagent: bool = False
    agent_type: str | None = None
    n_turns: int = 0
    n_messages: int = 0
    missing: bool = False
    #: On a team's shared server: the person whose session it is, and the machine it
    #: was pushed from (None for a session indexed straight into the server). Both are
    #: None in a local index, where every session is the asker's and on this machine.
    owner: str | None = None
    machine: str | None = None
    #: Its id on that machine. One transcript synced to several machines is pushed from
    #: each: the copies share owner and local id, and a search shows the best one only.
    local_id: str | None = None
    #: False for a colleague's session (seen through a project they shared): it can be
    #: read and found, never resumed or forgotten from here.
    yours: bool = True


@dataclass(frozen=True, slots=True)
class Restore:
    """A session's transcript is gone from where its agent looks for it (its agent
    deleted it, as Claude Code does after `cleanupPeriodDays`): whether findsession's
    archive holds a copy to write back before the agent resumes it, or why not."""

    #: Where the transcript was, and where it is written back.
    path: str
    #: The archive holds a copy.
    held: bool
    #: Why it cannot come back, when it is not held (one line).
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Restored:
    """A transcript written back from the archive, checked against its checksums."""

    path: str
    bytes: int


@dataclass(frozen=True, slots=True)
class Resume:
    """How to go back into a session with its own agent, or why there is no way.

    `command` is an argv list, never a shell line: an id or a path with spaces, quotes or
    a leading `-` stays one argument. It is run in `cwd`, the session's working directory:
    the agents look a session up by the directory it was started in.
    """

    #: The agent's command; empty when the session cannot be resumed (see `reason`).
    command: tuple[str, ...] = ()
    #: Where to run it; None when the index has no working directory for the session.
    cwd: str | None = None
    #: Whether `cwd` existed when this was worked out: a moved or deleted project is
    #: reported, never replaced by a guess.
    cwd_exists: bool = False
    #: The session the command resumes: the session itself, or a subagent's parent.
    session_id: str | None = None
    #: What to know before running it (a subagent resumes its parent, Aider restores a
    #: whole history file); None when there is nothing to add.
    note: str | None = None
    #: Why there is no command; set only when `command` is empty.
    reason: str | None = None
    #: The machine the command must run on, when it is not this one (a session pushed
    #: to a shared server from another of the person's machines): its transcript is there.
    machine: str | None = None
    #: The agent finds the session by its id from any folder (`llm chat --cid`): a
    #: missing working directory stands in nobody's way.
    anywhere: bool = False
    #: Set when the session's transcript is gone: `open` writes it back from the archive
    #: first (`Findsession.restore`), or says why it cannot.
    restore: Restore | None = None

    @property
    def available(self) -> bool:
        return bool(self.command)
