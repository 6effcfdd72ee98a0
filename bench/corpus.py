"""Generate a realistic `~/.claude/projects` tree of any size, deterministic from a seed.

    python bench/corpus.py OUT --sessions 2000 [--seed 7]

Shapes follow the public transcripts we measured (../shared/corpus, 35 files): a session
holds a median of 7 typed prompts (lognormal, up to 60), about 8 assistant lines per
prompt, a tool call on 60% of them with output of median 0.6 KB and mean 1.5 KB (a few
reach 40 KB), tool output about 15% of the bytes and the typed and written text about 3%;
the rest is JSON framing, file-history snapshots and progress lines. 23% of files are
subagents; most sessions carry an ai-title, some a custom title, a few a summary or a
compaction. The text comes from a small vocabulary of programming topics, so keyword and
vector queries have realistic matches. Prints what it wrote; exits 0.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

TOPICS = [
    ("deploy", ["rollout", "health check", "release", "staging", "canary", "nginx", "systemd"]),
    ("database", ["migration", "index", "query plan", "deadlock", "postgres", "sqlite", "orm"]),
    ("tests", ["flaky test", "fixture", "pytest", "mock", "coverage", "snapshot", "ci job"]),
    ("auth", ["token", "oauth", "session cookie", "jwt", "password reset", "2fa", "secret"]),
    ("frontend", ["react", "css grid", "sticky header", "hydration", "bundle size", "a11y"]),
    ("parser", ["tokenizer", "json lines", "utf-8", "off-by-one", "grammar", "escape"]),
    ("infra", ["docker", "kubernetes", "terraform", "dns", "tls cert", "load balancer"]),
    ("perf", ["latency", "cache", "profiling", "memory leak", "n+1 query", "batching"]),
    ("git", ["rebase", "merge conflict", "bisect", "cherry-pick", "hook", "submodule"]),
    ("docs", ["readme", "changelog", "api reference", "tutorial", "docstring", "diagram"]),
]
VERBS = ["fix", "add", "refactor", "debug", "speed up", "document", "remove", "rename", "review"]
ASKS = [
    "can you {verb} the {thing} in {file}?",
    "the {thing} is broken again after yesterday's {topic} change, {verb} it please",
    "why does {ident} fail when the {thing} is empty?",
    "let's {verb} {ident} so the {thing} stops timing out",
    "ok, now {verb} the {topic} part as well",
    "that didn't work: {error}",
    "yes, go ahead",
    "run the tests and commit",
]
REPLIES = [
    "I looked at {file}: the {thing} was read before the {topic} step finished, so {ident} saw"
    " stale data. I moved the check after it and added a test.",
    "The {thing} fails because {ident} assumes a non-empty list. I added a guard and a"
    " regression test; the suite passes.",
    "Done. {verb_cap}ed the {thing}; {file} now handles the {topic} case explicitly.",
    "Root cause: {error}. The {thing} retried without backoff. Fixed in {file}.",
]
ERRORS = [
    "ValueError: invalid literal",
    "TimeoutError after 30s",
    "KeyError: 'id'",
    "E0502 cannot borrow",
    "ECONNREFUSED 127.0.0.1:5432",
    "AssertionError: 3 != 4",
]
TOOLS = ["Bash", "Read", "Edit", "Grep", "Write", "Glob", "TodoWrite"]


def lognormal_int(rng: random.Random, median: float, sigma: float, lo: int, hi: int) -> int:
    return max(lo, min(hi, int(round(rng.lognormvariate(math.log(median), sigma)))))


class SessionWriter:
    """One transcript in Claude Code's 2.x format, written line by line."""

    def __init__(
        self, rng: random.Random, sid: str, cwd: str, start: datetime, agent_id: str | None = None
    ) -> None:
        self.rng, self.sid, self.cwd, self.time = rng, sid, cwd, start
        self.agent_id = agent_id
        self.parent: str | None = None
        self.lines: list[str] = []

    def _base(self, kind: str) -> dict:
        self.time += timedelta(seconds=self.rng.randint(2, 90))
        uid = str(uuid.UUID(int=self.rng.getrandbits(128)))
        line = {
            "parentUuid": self.parent,
            "isSidechain": self.agent_id is not None,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": "2.1.30",
            "gitBranch": "main",
            "type": kind,
            "uuid": uid,
            "timestamp": self.time.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        }
        if self.agent_id:
            line["agentId"] = self.agent_id
        self.parent = uid
        return line

    def emit(self, line: dict) -> None:
        self.lines.append(json.dumps(line, ensure_ascii=False))

    def prompt(self, text: str) -> None:
        line = self._base("user")
        line["message"] = {"role": "user", "content": text}
        self.emit(line)

    def assistant(self, block: dict) -> None:
        line = self._base("assistant")
        mid = "msg_" + uuid.UUID(int=self.rng.getrandbits(128)).hex[:24]
        line["message"] = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4",
            "content": [block],
            "stop_reason": None,
            "usage": {
                "input_tokens": self.rng.randint(10, 9000),
                "output_tokens": self.rng.randint(5, 900),
            },
        }
        line["requestId"] = "req_" + mid[4:]
        self.emit(line)

    def tool(self, name: str, tool_input: dict, output: str) -> None:
        tid = "toolu_" + uuid.UUID(int=self.rng.getrandbits(128)).hex[:24]
        self.assistant({"type": "tool_use", "id": tid, "name": name, "input": tool_input})
        line = self._base("user")
        line["message"] = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tid, "content": output}],
        }
        # Claude Code repeats the whole output here, one reason transcripts are large.
        line["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False}
        self.emit(line)

    def noise(self) -> None:
        """The framing lines that make up most of a real transcript's bytes."""
        if self.rng.random() < 0.5:
            self.emit(
                {
                    "type": "file-history-snapshot",
                    "messageId": str(self.parent),
                    "snapshot": {
                        "trackedFileBackups": {
                            f"src/m{i}.py": {
                                "backupFileName": f"{self.rng.getrandbits(64):x}@v2",
                                "version": 2,
                                "backupTime": self.time.isoformat(),
                            }
                            for i in range(self.rng.randint(1, 12))
                        }
                    },
                    "isSnapshotUpdate": False,
                }
            )
        else:
            line = self._base("progress")
            line["data"] = {
                "type": "hook_progress",
                "hookEvent": "PostToolUse",
                "command": "prettier --write",
                "output": "x" * self.rng.randint(50, 400),
            }
            self.emit(line)

    def meta(self, kind: str, **fields: object) -> None:
        self.emit({"type": kind, **fields, "sessionId": self.sid})

    def write(self, path: Path) -> int:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = ("\n".join(self.lines) + "\n").encode("utf-8")
        path.write_bytes(data)
        return len(data)


def fill(rng: random.Random, template: str, topic: str, things: list[str]) -> str:
    verb = rng.choice(VERBS)
    return template.format(
        verb=verb,
        verb_cap=verb.capitalize(),
        topic=topic,
        thing=rng.choice(things),
        file=f"src/{topic}/{rng.choice(things).replace(' ', '_')}.py",
        ident=f"{rng.choice(things).replace(' ', '_').replace('-', '_')}_{rng.randint(1, 99)}",
        error=rng.choice(ERRORS),
    )


def tool_output(rng: random.Random, topic: str, things: list[str]) -> str:
    size = lognormal_int(rng, 600, 1.3, 20, 40_000)
    words = [*things, topic, "ok", "PASSED", "FAILED", "line", "warning", "src", "return"]
    out, length = [], 0
    while length < size:
        w = rng.choice(words)
        out.append(w)
        length += len(w) + 1
    return " ".join(out)[:size]


def session(
    rng: random.Random, sid: str, cwd: str, start: datetime, agent_id: str | None = None
) -> SessionWriter:
    w = SessionWriter(rng, sid, cwd, start, agent_id)
    topic, things = rng.choice(TOPICS)
    prompts = lognormal_int(rng, 2 if agent_id else 7, 0.8, 1, 60)
    for _ in range(prompts):
        if rng.random() < 0.15:  # another topic comes up mid-session
            topic, things = rng.choice(TOPICS)
        w.prompt(fill(rng, rng.choice(ASKS), topic, things))
        for _ in range(lognormal_int(rng, 6, 0.7, 1, 60)):
            if rng.random() < 0.6:
                tool = rng.choice(TOOLS)
                w.tool(
                    tool,
                    {
                        "command" if tool == "Bash" else "file_path": fill(
                            rng, "{file}", topic, things
                        )
                    },
                    tool_output(rng, topic, things),
                )
            elif rng.random() < 0.15:
                w.assistant(
                    {
                        "type": "thinking",
                        "thinking": fill(rng, rng.choice(REPLIES), topic, things),
                        "signature": "sig",
                    }
                )
            else:
                w.assistant({"type": "text", "text": fill(rng, rng.choice(REPLIES), topic, things)})
            for _ in range(rng.choice((0, 1, 2, 3, 4, 6))):
                w.noise()
        if rng.random() < 0.03:
            w.meta("system", subtype="compact_boundary", content="Conversation compacted")
    if not agent_id:
        if rng.random() < 0.8:
            w.meta("ai-title", aiTitle=f"{rng.choice(VERBS).capitalize()} {topic} {things[0]}")
        if rng.random() < 0.1:
            w.meta("custom-title", customTitle=f"{topic}-{rng.randint(1, 999)}")
        if rng.random() < 0.05:
            w.meta("summary", summary=f"{topic} work on {things[1]}", leafUuid=w.parent)
    return w


def generate(
    out: Path, sessions: int, seed: int = 7, projects_under: str = "/home/dev/code/proj"
) -> tuple[int, int]:
    """Write `sessions` main sessions (and their subagents); return (files, bytes)."""
    rng = random.Random(seed)
    projects = [f"{projects_under}{i:02d}" for i in range(max(3, sessions // 60))]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    files = total = 0
    for n in range(sessions):
        cwd = rng.choice(projects)
        folder = out / "".join(c if c.isalnum() else "-" for c in cwd)
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        when = start + timedelta(minutes=n * 200 + rng.randint(0, 100))
        total += session(rng, sid, cwd, when).write(folder / f"{sid}.jsonl")
        files += 1
        while rng.random() < 0.3:  # 23% of files are subagents
            agent = f"a{rng.getrandbits(64):016x}"
            sub = session(rng, sid, cwd, when, agent_id=agent)
            total += sub.write(folder / sid / "subagents" / f"agent-{agent}.jsonl")
            files += 1
    return files, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="folder to write (a `projects` tree)")
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    files, size = generate(args.out, args.sessions, args.seed)
    print(f"wrote {files} files, {size / 1e6:.1f} MB, to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
