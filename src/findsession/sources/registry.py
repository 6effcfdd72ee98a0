"""Every source, once: its kind, where its class is, the rule for where its agent keeps
its files, the names people call its agent by, and the environment variables that move
where it reads.

Everything else that needs to know the sources reads this list: the index (`SOURCES`,
each source imported and made the first time its kind is looked up, and `PLACES`, the
standard places of them all, read without importing one), search (an agent a
query names, `SPOKEN_NAMES`), titles and the project roots (which sources are agents),
and a process started away from the person's shell, as the login unit that keeps the
index fresh, which must be given the same variables to read the same places
(`ENVIRONMENT`).

The registry names each source's module rather than importing it: a search reads one
or two formats' resume commands, `--help` none, and importing every parser (YAML,
Markdown, zstandard among them) cost a cold command a third of its imports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from findsession.sources.places import clis, common, data, editors, homes, projects

if TYPE_CHECKING:  # the registry names sources; it loads none until one is asked for
    from findsession.sources.base import Source


class SourceKind(StrEnum):
    """Which agent (or document kind) a session came from."""

    CLAUDE_CODE = "claude-code"
    AIDER = "aider"
    CECLI = "cecli"
    CODEX = "codex"
    GEMINI = "gemini"
    QWEN = "qwen"
    DROID = "droid"
    PI = "pi"
    COPILOT_CLI = "copilot-cli"
    CURSOR_AGENT = "cursor-agent"
    VSCODE_COPILOT = "vscode-copilot"
    CLINE = "cline"
    ROO_CODE = "roo-code"
    AMP = "amp"
    OPENCODE = "opencode"
    KILO_CODE = "kilo-code"
    GOOSE = "goose"
    CRUSH = "crush"
    KIRO = "kiro"
    KIRO_IDE = "kiro-ide"
    AMAZON_Q = "amazon-q"
    CURSOR = "cursor"
    WINDSURF = "windsurf"
    CODY = "cody"
    ZED = "zed"
    CONTINUE = "continue"
    KIMI = "kimi"
    KIMI_CODE = "kimi-code"
    OPENHANDS = "openhands"
    JUNIE = "junie"
    ANTIGRAVITY = "antigravity"
    WARP = "warp"
    IFLOW = "iflow"
    QODER = "qoder"
    AUGGIE = "auggie"
    TRAE_CLI = "trae-cli"
    VIBE = "vibe"
    GPTME = "gptme"
    CODEBUDDY = "codebuddy"
    LLM = "llm"
    HERMES = "hermes"
    NANOCODER = "nanocoder"
    AVANTE = "avante"
    CODE_PUPPY = "code-puppy"
    LETTA = "letta"
    RA_AID = "ra-aid"
    OPEN_INTERPRETER = "open-interpreter"
    DEVIN = "devin"
    GROK_CLI = "grok-cli"
    FORGE = "forge"
    SPECSTORY = "specstory"
    CHATGPT = "chatgpt"
    CLAUDE_AI = "claude-ai"
    GEMINI_APPS = "gemini-apps"
    MARKDOWN = "markdown"
    JOURNAL = "journal"
    MEMORY = "memory"


@dataclass(frozen=True, slots=True)
class Start:
    """How an agent is started afresh with a first prompt (`handoff --to`): the command
    before the prompt, and whether the prompt is the value of its last flag or follows
    as a positional argument. Only an agent that stays interactive after that prompt has
    one: an agent that runs a prompt and exits would end a handoff where it begins."""

    command: tuple[str, ...]
    as_option: bool = False

    @property
    def agent(self) -> str:
        """The name `handoff --to` takes: the agent's own command."""
        return self.command[0]


@dataclass(frozen=True, slots=True)
class Entry:
    """One source."""

    kind: str
    #: `module:Class` of its `Source`, the module under `findsession.sources`.
    home: str
    #: Its rule for where its agent keeps its files by default (`Source.default_roots`),
    #: in `sources.places`: read without importing the source.
    places: Callable[[], list[Path]] = common.nowhere
    #: What people call the agent when they ask for one of its sessions ("the Codex chat
    #: where..."): search favours the sessions of an agent the query names.
    spoken: tuple[str, ...] = ()
    #: The environment variables that move where it reads (its agent's home, or the
    #: system's data folder it keeps its files under), on any system.
    env: tuple[str, ...] = ()
    #: Its sessions are conversations with an agent; False for documents (notes).
    agent: bool = True
    #: How its agent starts with a first prompt, when it can (see `Start`).
    start: Start | None = None
    #: Its agent deletes its own transcripts after a while by default (Claude Code's
    #: `cleanupPeriodDays`, Gemini CLI's `sessionRetention`, Warp's oldest beyond 200):
    #: findsession's archive keeps a copy of its files unless `[archive]` says otherwise
    #: (docs/sources.md); an SQLite store (Warp's) is never copied.
    deletes_own_files: bool = False
    #: A chat app's data export: read from the roots the person names (never looked for
    #: on the machine), which the index remembers and reads again.
    export: bool = False
    #: Its rule for the store its agent may keep inside a project (Crush's `.crush/`):
    #: the folder of it in a project, or None (`Source.project_root`), in
    #: `sources.places`, so an index run asks each indexed project without importing
    #: the source.
    in_project: Callable[[Path], Path | None] | None = None


_CONFIG = ("XDG_CONFIG_HOME", "APPDATA")  # an editor's `User` folder and its extensions'
_DATA = ("XDG_DATA_HOME",)  # the data folder an agent keeps its store in

_CURSOR_AGENT = Start(("cursor-agent",))

ENTRIES: tuple[Entry, ...] = (
    Entry(
        SourceKind.CLAUDE_CODE,
        "claude_code:ClaudeCodeSource",
        places=homes.claude_code,
        spoken=("claude",),
        env=("CLAUDE_CONFIG_DIR",),
        start=Start(("claude",)),
        deletes_own_files=True,
    ),
    Entry(
        SourceKind.CODEX,
        "codex:CodexSource",
        places=homes.codex,
        spoken=("codex",),
        env=("CODEX_HOME",),
        start=Start(("codex",)),
    ),
    Entry(
        SourceKind.AIDER,
        "aider:AiderSource",
        places=homes.aider,
        spoken=("aider",),
        env=("AIDER_CHAT_HISTORY_FILE",),
    ),
    # Aider's fork; "aider-ce" is what it was called before.
    Entry(
        SourceKind.CECLI,
        "cecli:CecliSource",
        places=homes.cecli,
        spoken=("cecli", "aider-ce"),
        env=("CECLI_CHAT_HISTORY_FILE",),
    ),
    Entry(
        SourceKind.GEMINI,
        "gemini:GeminiSource",
        places=homes.gemini,
        spoken=("gemini",),
        env=("GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH"),
        start=Start(("gemini", "--prompt-interactive"), as_option=True),
        deletes_own_files=True,
    ),
    Entry(
        SourceKind.QWEN,
        "qwen:QwenSource",
        places=homes.qwen,
        spoken=("qwen",),
        env=("QWEN_HOME",),
        start=Start(("qwen", "--prompt-interactive"), as_option=True),
    ),
    # `droid "query"` opens its REPL with that first prompt (`droid exec` runs and exits).
    Entry(
        SourceKind.DROID,
        "droid:DroidSource",
        places=clis.droid,
        spoken=("droid",),
        env=("FACTORY_HOME_OVERRIDE",),
        start=Start(("droid",)),
    ),
    # "pi" is the number far more often than the agent: no query is taken to name it.
    Entry(
        SourceKind.PI,
        "pi:PiSource",
        places=clis.pi,
        spoken=(),
        env=("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"),
    ),
    Entry(
        SourceKind.COPILOT_CLI,
        "copilot_cli:CopilotCliSource",
        places=clis.copilot_cli,
        spoken=("copilot",),
        env=("COPILOT_HOME",),
        # `-i, --interactive <prompt>`: "start interactive mode and automatically execute
        # this prompt" (its help); `-p` runs the prompt and exits.
        start=Start(("copilot", "--interactive"), as_option=True),
    ),
    # "cursor" alone is a word of code talk.
    Entry(
        SourceKind.CURSOR_AGENT,
        "cursor_agent:CursorAgentSource",
        places=clis.cursor_agent,
        spoken=("cursor-agent",),
        start=_CURSOR_AGENT,
    ),
    Entry(
        SourceKind.VSCODE_COPILOT,
        "vscode_copilot:VSCodeCopilotSource",
        places=editors.vscode_copilot,
        spoken=("vscode", "copilot"),
        env=_CONFIG,
    ),
    Entry(
        SourceKind.CLINE,
        "extension_tasks:ClineSource",
        places=editors.cline,
        spoken=("cline",),
        # The extension's tasks under the editor's config folder; the CLI's data under
        # `~/.cline/data`, which these move (its own order: sessions, data, home).
        env=(*_CONFIG, "CLINE_SESSION_DATA_DIR", "CLINE_DATA_DIR", "CLINE_DIR"),
    ),
    Entry(
        SourceKind.ROO_CODE,
        "extension_tasks:RooCodeSource",
        places=editors.roo_code,
        spoken=("roo",),
        env=_CONFIG,
    ),
    Entry(SourceKind.AMP, "amp:AmpSource", places=clis.amp, spoken=("amp",), env=_DATA),
    Entry(
        SourceKind.OPENCODE,
        "opencode:OpenCodeSource",
        places=data.opencode,
        in_project=projects.opencode_project,
        spoken=("opencode",),
        env=_DATA,
        start=Start(("opencode", "--prompt"), as_option=True),
    ),
    Entry(
        SourceKind.KILO_CODE,
        "opencode:KiloCodeSource",
        places=data.kilo_code,
        spoken=("kilo",),
        env=_DATA,
    ),
    Entry(
        SourceKind.GOOSE,
        "goose:GooseSource",
        places=data.goose,
        spoken=("goose",),
        env=("GOOSE_PATH_ROOT", *_DATA, "APPDATA"),
        # `goose run --text TEXT` runs and exits; `--interactive` ("continue in interactive
        # mode after processing initial input") keeps the session open.
        start=Start(("goose", "run", "--interactive", "--text"), as_option=True),
    ),
    Entry(
        SourceKind.CRUSH,
        "crush:CrushSource",
        places=data.crush,
        in_project=projects.crush_project,
        spoken=("crush",),
        env=("CRUSH_GLOBAL_DATA", *_DATA, "LOCALAPPDATA"),
    ),
    # `kiro-cli chat INPUT` opens the chat with that first message; `--no-interactive`
    # would answer it and exit.
    Entry(
        SourceKind.KIRO,
        "kiro:KiroSource",
        places=editors.kiro,
        spoken=("kiro",),
        env=(*_DATA, "APPDATA"),
        start=Start(("kiro-cli", "chat")),
    ),
    # The editor's chats; the editor has no command that opens one.
    Entry(
        SourceKind.KIRO_IDE,
        "kiro_ide:KiroIdeSource",
        places=editors.kiro_ide,
        spoken=("kiro",),
        env=_CONFIG,
    ),
    # Kiro CLI's former self, no longer released: no handoff starts it.
    # "q" alone is any letter of any query; people write "AmazonQ".
    Entry(
        SourceKind.AMAZON_Q,
        "amazon_q:AmazonQSource",
        places=data.amazon_q,
        spoken=("amazonq",),
        env=(*_DATA, "LOCALAPPDATA"),
    ),
    # "cursor" alone is code talk (a database, pagination or text cursor): taken for the
    # editor it would nudge the editor's chats up for every such query and drop the word
    # from the query's coverage. "composer" is PHP's package manager.
    # A chat of the editor is carried on by its agent on the command line.
    Entry(
        SourceKind.CURSOR,
        "cursor_ide:CursorIdeSource",
        places=editors.cursor,
        spoken=("cursor-ide",),
        env=_CONFIG,
        start=_CURSOR_AGENT,
    ),
    Entry(
        SourceKind.WINDSURF,
        "cursor_ide:WindsurfSource",
        places=editors.windsurf,
        spoken=("windsurf",),
        env=_CONFIG,
    ),
    # The extension's history in the editor's global state; the JetBrains plugin's in
    # its agent's data folder, or (2024) in each project's `.idea/`.
    Entry(
        SourceKind.CODY,
        "cody:CodySource",
        places=editors.cody,
        in_project=projects.cody_project,
        spoken=("cody",),
        env=(*_CONFIG, *_DATA, "LOCALAPPDATA"),
    ),
    Entry(
        SourceKind.ZED,
        "zed:ZedSource",
        places=data.zed,
        spoken=("zed",),
        env=("FLATPAK_XDG_DATA_HOME", *_DATA, "LOCALAPPDATA"),
    ),
    # "continue" is a word of every other request ("continue where we left off"): no
    # query is taken to name the agent by it.
    Entry(
        SourceKind.CONTINUE,
        "continue_dev:ContinueSource",
        places=clis.continue_dev,
        spoken=(),
        env=("CONTINUE_GLOBAL_DIR",),
    ),
    Entry(
        SourceKind.KIMI,
        "kimi:KimiSource",
        places=clis.kimi,
        spoken=("kimi",),
        env=("KIMI_SHARE_DIR",),
    ),
    Entry(
        SourceKind.KIMI_CODE,
        "kimi_code:KimiCodeSource",
        places=clis.kimi_code,
        spoken=("kimi",),
        env=("KIMI_CODE_HOME",),
    ),
    Entry(
        SourceKind.OPENHANDS,
        "openhands:OpenHandsSource",
        places=clis.openhands,
        spoken=("openhands",),
        env=("OPENHANDS_CONVERSATIONS_DIR", "OPENHANDS_PERSISTENCE_DIR"),
    ),
    Entry(
        SourceKind.JUNIE,
        "junie:JunieSource",
        places=clis.junie,
        spoken=("junie",),
        env=("JUNIE_HOME",),
    ),
    Entry(
        SourceKind.ANTIGRAVITY,
        "antigravity:AntigravitySource",
        places=homes.antigravity,
        spoken=("antigravity", "agy"),
    ),
    Entry(
        SourceKind.IFLOW,
        "iflow:IflowSource",
        places=homes.iflow,
        spoken=("iflow",),
        env=("IFLOW_HOME",),
    ),
    Entry(
        SourceKind.QODER,
        "qoder:QoderSource",
        places=homes.qoder,
        spoken=("qoder",),
        env=(
            "QODER_CONFIG_DIR",
            "QODER_CLI_HOME",
            "GEMINI_CLI_HOME",
            "QODER_CONFIG_DIR_NAME",
            "QODERCN_CONFIG_DIR",
            "QODERCN_CLI_HOME",
        ),
    ),
    # "augment" is a word of code talk ("augment the list"). Auggie's folder moves only
    # with a flag: no variable.
    # `auggie "instruction"` opens its full-screen UI with it (`--print` runs and exits).
    Entry(
        SourceKind.AUGGIE,
        "auggie:AuggieSource",
        places=clis.auggie,
        spoken=("auggie",),
        start=Start(("auggie",)),
    ),
    # No variable is known to move TRAE CLI's home.
    Entry(
        SourceKind.TRAE_CLI,
        "trae_cli:TraeCliSource",
        places=homes.trae_cli,
        spoken=("trae", "traecli"),
    ),
    # `vibe "prompt"` opens its interactive session with that first prompt (`-p` runs it
    # and exits). "vibe" is also said of a way of coding ("vibe coding"): it nudges only
    # a person who has Vibe sessions, who most likely means the agent.
    Entry(
        SourceKind.VIBE,
        "vibe:VibeSource",
        places=clis.vibe,
        spoken=("vibe",),
        env=("VIBE_HOME",),
        start=Start(("vibe",)),
    ),
    # `gptme "prompt"` answers that first prompt and stays in its chat (`-n` runs it and
    # exits).
    Entry(
        SourceKind.GPTME,
        "gptme:GptmeSource",
        places=data.gptme,
        spoken=("gptme",),
        env=("GPTME_LOGS_HOME", *_DATA, "LOCALAPPDATA"),
        start=Start(("gptme",)),
    ),
    # `codebuddy "prompt"` opens its interactive session with that first prompt (`-p`
    # runs it and exits); it deletes sessions untouched for `cleanupPeriodDays`.
    Entry(
        SourceKind.CODEBUDDY,
        "codebuddy:CodeBuddySource",
        places=clis.codebuddy,
        spoken=("codebuddy",),
        env=("CODEBUDDY_CONFIG_DIR",),
        start=Start(("codebuddy",)),
        deletes_own_files=True,
    ),
    # "llm" alone is a word of every other query about models ("the llm answered..."):
    # taken for the tool it would nudge its conversations up and drop the word from the
    # query's coverage. People who mean the tool say its package's name with the CLI.
    # `llm chat` takes no first prompt, so no handoff starts it.
    Entry(
        SourceKind.LLM,
        "llm_logs:LlmSource",
        places=data.llm,
        spoken=("llm-cli",),
        env=("LLM_USER_PATH", *_CONFIG),
    ),
    # "hermes" is also React Native's JavaScript engine: it nudges only a person who has
    # Hermes Agent sessions, who most likely means the agent. `hermes chat -q` answers a
    # first prompt and exits, so no handoff starts it.
    Entry(
        SourceKind.HERMES,
        "hermes:HermesSource",
        places=clis.hermes,
        spoken=("hermes",),
        env=("HERMES_HOME", "LOCALAPPDATA"),
    ),
    # Its interactive app takes no first prompt (`nanocoder run "..."` answers and exits),
    # so no handoff starts it.
    Entry(
        SourceKind.NANOCODER,
        "nanocoder:NanocoderSource",
        places=data.nanocoder,
        spoken=("nanocoder",),
        # The data folder, and the config folder whose preferences may name another.
        env=("NANOCODER_DATA_DIR", "NANOCODER_CONFIG_DIR", *_DATA, *_CONFIG),
        # Sessions not used for `retentionDays` (30) and the oldest beyond `maxSessions`
        # (100), when it starts and when it saves a new session.
        deletes_own_files=True,
    ),
    # avante.nvim runs inside Neovim, which takes no first prompt for it, so no handoff
    # starts it. Neovim's state folder holds its chats: moved by `XDG_STATE_HOME`, named
    # after `NVIM_APPNAME`, under `LOCALAPPDATA` on Windows.
    Entry(
        SourceKind.AVANTE,
        "avante:AvanteSource",
        places=data.avante,
        spoken=("avante",),
        env=("NVIM_APPNAME", "XDG_STATE_HOME", "LOCALAPPDATA"),
    ),
    # `code-puppy "prompt"` runs that prompt in its interactive mode and stays there
    # (`-p` runs it and exits). "puppy" alone is no one's name for a program.
    Entry(
        SourceKind.CODE_PUPPY,
        "code_puppy:CodePuppySource",
        places=data.code_puppy,
        spoken=("code-puppy", "codepuppy"),
        # Each moves its folder of that kind (else everything is in ~/.code_puppy).
        env=("XDG_CACHE_HOME", *_DATA),
        start=Start(("code-puppy",)),
    ),
    # Only its local backend's conversations are on this machine (a Letta server keeps
    # the others). Whether `letta` takes a first prompt and stays in its app is not
    # checked, so no handoff starts it.
    Entry(
        SourceKind.LETTA,
        "letta:LettaSource",
        places=clis.letta,
        spoken=("letta",),
        env=("LETTA_LOCAL_BACKEND_DIR",),
    ),
    # `ra-aid -m "..."` runs its task to the end and exits, and `--chat` takes no first
    # prompt, so no handoff starts it. Its stores sit in each project: no variable moves them.
    Entry(
        SourceKind.RA_AID,
        "ra_aid:RaAidSource",
        places=clis.ra_aid,
        in_project=projects.ra_aid_project,
        spoken=("ra-aid",),
    ),
    # "interpreter" alone is a word of every talk about Python; people say the package's
    # name. Its `interpreter WORDS` shortcut sends "I WORDS" with instructions of its own
    # to hurry, so no handoff starts it.
    Entry(
        SourceKind.OPEN_INTERPRETER,
        "open_interpreter:OpenInterpreterSource",
        places=data.open_interpreter,
        spoken=("open-interpreter",),
        env=(*_CONFIG, "LOCALAPPDATA"),
    ),
    # "devin" is also a given name: it nudges only a person who has Devin CLI sessions,
    # who most likely means the agent. `devin -- PROMPT` opens its interactive session
    # with that first prompt; the `--` keeps a prompt that begins with one of its
    # subcommands' names (`list`, `auth`) a prompt. Only its local sessions are on disk
    # (`devin --cloud`'s are in its cloud).
    Entry(
        SourceKind.DEVIN,
        "devin:DevinSource",
        places=data.devin,
        spoken=("devin",),
        env=_DATA,
        start=Start(("devin", "--")),
    ),
    # "grok" alone is xAI's model, which many agents run, and an English verb ("help me
    # grok this"): people who mean this CLI say its package's name. Whether `grok
    # "prompt"` stays in its terminal UI after answering was not checked, so no handoff
    # starts it. Its store is in `~/.grok`: no variable moves it.
    Entry(
        SourceKind.GROK_CLI,
        "grok_cli:GrokCliSource",
        places=clis.grok_cli,
        spoken=("grok-cli", "grok-dev"),
    ),
    # "forge" alone names many other things (SourceForge, Minecraft Forge, Laravel Forge,
    # a forge in code talk): people who mean this agent say "forgecode", its site's and
    # package's name. Whether `forge "prompt"` stays in its shell after answering was not
    # checked, so no handoff starts it.
    Entry(
        SourceKind.FORGE,
        "forge:ForgeSource",
        places=clis.forge,
        spoken=("forgecode", "forge-code"),
        env=("FORGE_CONFIG",),
    ),
    # "warp" alone is a word of code talk (Rust's web framework, a warp's threads).
    Entry(
        SourceKind.WARP,
        "warp:WarpSource",
        places=data.warp,
        spoken=("warp-terminal",),
        env=("XDG_STATE_HOME", "LOCALAPPDATA"),
        # Beyond 200 conversations: its store is a database, which the archive never
        # copies; the index keeps what it read of each conversation.
        deletes_own_files=True,
    ),
    Entry(
        SourceKind.SPECSTORY,
        "specstory:SpecStorySource",
        places=common.nowhere,
        in_project=projects.specstory_project,
        spoken=("specstory",),
    ),
    Entry(
        SourceKind.CHATGPT,
        "chatgpt:ChatGptSource",
        places=common.nowhere,
        spoken=("chatgpt",),
        export=True,
    ),
    Entry(
        SourceKind.CLAUDE_AI,
        "claude_ai:ClaudeAiSource",
        places=common.nowhere,
        spoken=("claude", "claude.ai"),
        export=True,
    ),
    Entry(
        SourceKind.GEMINI_APPS,
        "gemini_apps:GeminiAppsSource",
        places=common.nowhere,
        spoken=("gemini", "bard"),
        export=True,
    ),
    Entry(SourceKind.MARKDOWN, "markdown:MarkdownSource", places=common.nowhere, agent=False),
    Entry(SourceKind.JOURNAL, "journal:JournalSource", places=common.nowhere, agent=False),
    Entry(
        SourceKind.MEMORY,
        "memory:MemorySource",
        places=homes.memory,
        env=("CLAUDE_CONFIG_DIR",),
        agent=False,
    ),
)


class _Registry(Mapping[str, "Source"]):
    """Every source by kind, in a fixed order; each made on first use, then kept."""

    def __init__(self, entries: tuple[Entry, ...]) -> None:
        self._homes = {entry.kind: entry.home for entry in entries}
        self._made: dict[str, Source] = {}

    def __getitem__(self, kind: str) -> Source:
        source = self._made.get(kind)
        if source is None:
            module, name = self._homes[kind].split(":")
            made = getattr(import_module(f"findsession.sources.{module}"), name)()
            source = self._made[kind] = made
        return source

    def __contains__(self, kind: object) -> bool:  # a name check imports nothing
        return kind in self._homes

    def __iter__(self) -> Iterator[str]:
        return iter(self._homes)

    def __len__(self) -> int:
        return len(self._homes)


#: What people call each source, as the README's list of sources names it
#: (`tools/readme_sources.py` writes that list from the entries and these names).
NAMES: dict[str, str] = {
    SourceKind.CLAUDE_CODE: "Claude Code",
    SourceKind.CODEX: "Codex CLI",
    SourceKind.AIDER: "Aider",
    SourceKind.CECLI: "cecli (Aider Community Edition, formerly aider-ce)",
    SourceKind.GEMINI: "Gemini CLI",
    SourceKind.QWEN: "Qwen Code",
    SourceKind.DROID: "Factory Droid",
    SourceKind.PI: "Pi",
    SourceKind.COPILOT_CLI: "GitHub Copilot CLI",
    SourceKind.CURSOR_AGENT: "cursor-agent",
    SourceKind.VSCODE_COPILOT: "VS Code Copilot Chat",
    SourceKind.CLINE: "Cline (the editor extension and its CLI)",
    SourceKind.ROO_CODE: "Roo Code",
    SourceKind.AMP: "Amp",
    SourceKind.OPENCODE: "OpenCode",
    SourceKind.KILO_CODE: "Kilo Code",
    SourceKind.GOOSE: "Goose",
    SourceKind.CRUSH: "Crush",
    SourceKind.KIRO: "Kiro CLI",
    SourceKind.KIRO_IDE: "Kiro IDE",
    SourceKind.AMAZON_Q: "Amazon Q Developer CLI",
    SourceKind.CURSOR: "Cursor IDE",
    SourceKind.WINDSURF: "Windsurf's older chat panel",
    SourceKind.CODY: "Sourcegraph Cody (its VS Code and JetBrains extensions)",
    SourceKind.ZED: "Zed's agent threads",
    SourceKind.CONTINUE: "Continue",
    SourceKind.KIMI: "Kimi CLI",
    SourceKind.KIMI_CODE: "Kimi Code CLI",
    SourceKind.OPENHANDS: "OpenHands (the CLI and the app)",
    SourceKind.JUNIE: "JetBrains Junie",
    SourceKind.ANTIGRAVITY: "Google Antigravity (the editor and its CLI)",
    SourceKind.IFLOW: "iFlow CLI",
    SourceKind.QODER: "Qoder CLI",
    SourceKind.AUGGIE: "Augment's Auggie CLI",
    SourceKind.TRAE_CLI: "TRAE CLI",
    SourceKind.VIBE: "Mistral Vibe",
    SourceKind.GPTME: "gptme",
    SourceKind.CODEBUDDY: "CodeBuddy Code",
    SourceKind.LLM: "Simon Willison's llm CLI",
    SourceKind.HERMES: "Hermes Agent (the terminal and its messaging gateway)",
    SourceKind.NANOCODER: "Nanocoder",
    SourceKind.AVANTE: "avante.nvim",
    SourceKind.CODE_PUPPY: "Code Puppy",
    SourceKind.LETTA: "Letta Code (its local backend)",
    SourceKind.RA_AID: "RA.Aid",
    SourceKind.OPEN_INTERPRETER: "Open Interpreter",
    SourceKind.DEVIN: "Devin CLI (its local sessions)",
    SourceKind.GROK_CLI: "Grok CLI (superagent-ai's grok-dev)",
    SourceKind.FORGE: "Forge (antinomyhq's ForgeCode)",
    SourceKind.WARP: "Warp's agent conversations",
    SourceKind.SPECSTORY: "SpecStory's Markdown exports",
    SourceKind.CHATGPT: "ChatGPT",
    SourceKind.CLAUDE_AI: "Claude.ai",
    SourceKind.GEMINI_APPS: "Gemini Apps",
    SourceKind.MARKDOWN: "Markdown docs",
    SourceKind.JOURNAL: "journals",
    SourceKind.MEMORY: "agents' memory notes",
}

SOURCES: Mapping[str, Source] = _Registry(ENTRIES)
#: The agents' names in a query, by kind; every agent has an entry (Pi's is empty).
SPOKEN_NAMES: dict[str, tuple[str, ...]] = {e.kind: e.spoken for e in ENTRIES if e.agent}
#: Every source's kind, as `SourceKind` lists them: what `--source` and the MCP tools offer.
KINDS: tuple[str, ...] = tuple(kind.value for kind in SourceKind)
#: How each agent `handoff --to` can start is started, by its name and by its sources'
#: kinds (`claude` and `claude-code` alike).
STARTS: dict[str, Start] = {
    **{e.start.agent: e.start for e in ENTRIES if e.start},
    **{e.kind: e.start for e in ENTRIES if e.start},
}
#: The agents `handoff --to` can start, each once, by the name it takes.
HANDOFF_AGENTS: tuple[str, ...] = tuple(dict.fromkeys(e.start.agent for e in ENTRIES if e.start))
#: Each source's rule for its standard places (`Entry.places`), by kind: what
#: `config.default_roots` and `Source.default_roots` read, importing no source.
PLACES: dict[str, Callable[[], list[Path]]] = {e.kind: e.places for e in ENTRIES}
#: Each rule for a store an agent keeps inside a project (`Entry.in_project`), by kind.
IN_PROJECT: dict[str, Callable[[Path], Path | None]] = {
    e.kind: e.in_project for e in ENTRIES if e.in_project
}
#: Every variable any source reads to find its files, each once.
ENVIRONMENT: tuple[str, ...] = tuple(dict.fromkeys(v for e in ENTRIES for v in e.env))
#: Those of them that hold a name rather than a folder (Neovim's `NVIM_APPNAME`, the
#: folder name under its state folder): carried as they are, never made a path.
NAMED_ENVIRONMENT: frozenset[str] = frozenset(("NVIM_APPNAME",))
