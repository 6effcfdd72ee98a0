"""One small corpus of every source whose cursor keeps more than a byte offset and a hash,
each laid out where its agent writes it, for the tests of stored cursors.

What each file leaves in its cursor: a Claude Code transcript and the Codex rollouts the
hash of what was read (Codex with its parser's state); an Aider history where its last
run began; Crush's, Goose's, OpenCode's, Kiro's and the Cursor IDE's stores a change
token per session; a Goose file Goose imported into its store, an OpenCode tree session
its store holds and a Kiro session its database holds, that the other copy is indexed;
two SpecStory exports of one chat, which of them is indexed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from crush_store import CrushStore
from crush_store import text as crush_text
from cursor_store import StateDb, agent, user
from goose_store import GooseStore
from goose_store import text as goose_text
from kiro_store import KiroStore, prompt, reply
from opencode_store import OpenCodeStore
from specstory_exports import cli as cli_export
from specstory_exports import write
from transcripts import Transcript, project_dir

from findsession.domain import Root

FIXTURES = Path(__file__).parent / "fixtures"
PUMP = "5c1b3a9d-3333-4e2f-8d7c-000000000003"
HIVE = "3b8d1f22-9c4e-4a7b-8e13-6f2a0c9d5e02"
LAMP = "ses_5a1f00000003LighthouseLamp"


def build(home: Path) -> list[Root]:
    """The corpus under `home` (the user's home folder for the run: Kiro's database is
    looked for in its standard place there), and the roots that read it."""
    roots: list[Root] = []

    claude = home / ".claude" / "projects"
    t = Transcript(session_id="a1b2c3d4-0000-4000-8000-00000000c1a0", cwd="/home/dev/kettle")
    t.prompt("why does the kettle click twice").reply("The thermostat bounces.")
    t.write(project_dir(claude, "/home/dev/kettle"))
    roots.append(Root(claude, "claude-code"))

    codex = home / ".codex"
    shutil.copytree(FIXTURES / "codex" / "home", codex)
    roots.append(Root(codex, "codex"))

    aider = home / "code"
    shutil.copytree(FIXTURES / "aider" / "weather-station", aider / "weather-station")
    roots.append(Root(aider, "aider"))

    crush = CrushStore(home / "code" / "greenhouse" / ".crush" / "crush.db")
    crush.session("vent", "Vent motor")
    crush.message("vent", "user", [crush_text("Why does the vent motor stall at dawn?")])
    crush.message("vent", "assistant", [crush_text("The dew shorts its limit switch.")])
    crush.session("pump", "Sump pump")
    crush.message("pump", "user", [crush_text("Log the sump pump amp draw")])
    crush.close()
    roots.append(Root(home / "code" / "greenhouse", "crush"))

    goose = home / ".local" / "share" / "goose" / "sessions"
    shutil.copytree(FIXTURES / "goose" / "sessions", goose)
    imported = GooseStore(goose / "sessions.db")  # Goose 1.10 imported one file
    imported.session("kelp-farm", "/home/dev/kelp", "Kelp farm buoy telemetry")
    imported.message("kelp-farm", "user", goose_text("Why do the kelp buoys drop at dusk?"))
    imported.message("kelp-farm", "assistant", goose_text("Their radio saves power at dusk."))
    imported.close()
    roots.append(Root(goose, "goose"))

    opencode = home / ".local" / "share" / "opencode"
    shutil.copytree(FIXTURES / "opencode" / "storage", opencode / "storage")
    store = OpenCodeStore(opencode / "opencode.db")  # OpenCode 1.2 copied one session
    store.project("/home/dev/lighthouse")
    store.session(LAMP, "/home/dev/lighthouse", "Lighthouse lamp timer")
    store.turn(LAMP, "Why does the lighthouse lamp rotation timer drift?", "A fixed sleep.")
    store.close()
    roots.append(Root(opencode, "opencode"))

    kiro = home / ".kiro" / "sessions" / "cli"
    shutil.copytree(FIXTURES / "kiro" / "sessions" / "cli", kiro)
    database = KiroStore(home / ".local" / "share" / "kiro-cli" / "data.sqlite3")
    database.put(
        "/home/dev/apiary",
        HIVE,  # the database holds the conversation one of the files holds too
        [
            {
                "user": prompt("Calibrate the beehive scale tare", "/home/dev/apiary"),
                "assistant": reply("m-3", "Tare it with the empty super on."),
            }
        ],
    )
    database.close()
    roots += [Root(kiro, "kiro"), Root(database.path.parent, "kiro")]

    project = home / "code" / "sump"
    when = "2026-01-16 16:26:02Z"
    one = [("the sump pump hums but does not start", ["Check the float switch."])]
    two = [*one, ("the float switch is fine", ["Then the capacitor is gone."])]
    write(project, "2026-01-16_16-26-02Z.md", cli_export("Claude Code", PUMP, when, one))
    write(project, "2026-01-16_16-26-02Z-pump.md", cli_export("Claude Code", PUMP, when, two))
    roots.append(Root(project, "specstory"))

    cursor = home / ".config" / "Cursor" / "User"
    chats = StateDb(cursor / "globalStorage" / "state.vscdb")
    chats.composer(
        "c0ffee00-0000-4000-8000-000000000001",
        [user("b1", "Why is the espresso grinder retaining grounds?"), agent("b2", "Static.")],
        name="Grinder retention",
    )
    chats.close()
    roots.append(Root(cursor, "cursor"))
    return roots
