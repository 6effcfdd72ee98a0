"""cursor-agent's older `.txt` transcripts, read block by block: a thinking summary's
paragraphs at the left margin, `<think>` tags, and tool arguments whose values run over
lines, each laid out as real transcripts lay them out (the text is synthetic)."""

from __future__ import annotations

from findsession.domain import Message
from findsession.sources.cursor_agent_records import TranscriptParser


def parts(text: str) -> list[tuple[str, str | None, str]]:
    records = TranscriptParser("7e1d3c5a-9b20-4f86-a4d1-2c6e8f0b5a37", None, None).parse_text(text)
    return [(r.kind.value, r.tool_name, r.text) for r in records if isinstance(r, Message)]


def test_a_thinking_summary_keeps_its_paragraphs_at_the_margin() -> None:
    """A summary is a bold title, a blank line and its paragraph, all at the left margin
    (the next summary follows on the next line); the reply follows on the next line, and
    a model's longer thinking (paragraphs, lists, a fenced block) runs until a line
    follows a plain line directly."""
    text = (
        "user:\n<user_query>\nwhy is the greenhouse fan stuck at full speed\n</user_query>\n\n"
        "assistant:\n[Thinking] **Checking the fan controller**\n\n"
        "I'm reading the PWM table to see whether the duty clamps at its maximum.\n"
        "**Reading the clamp**\n\nThe table has twelve rows.\n"
        "[Tool call] ReadFile\n  path: /home/dev/trellis/fan/pwm.c\n\n[Tool result] ReadFile\n\n"
        "assistant:\n[Thinking] The clamp is inverted, so a high reading pins the fan.\n\n"
        "Two fixes are possible:\n1. Swap the comparison.\n2. Add a hysteresis band.\n\n"
        "The first is defined as:\n```c\nif (reading > limit)\n\n    duty = 100;\n```\n\n"
        "The first is smaller.\n"
        "The clamp in `pwm.c` is inverted: readings above the limit pin the fan.\n\n"
        "Swapping the comparison fixes it.\n"
    )
    assert parts(text) == [
        ("prompt", None, "why is the greenhouse fan stuck at full speed"),
        (
            "thinking",
            None,
            "**Checking the fan controller**\n\n"
            "I'm reading the PWM table to see whether the duty clamps at its maximum.\n"
            "**Reading the clamp**\n\nThe table has twelve rows.",
        ),
        ("tool_call", "ReadFile", "path: /home/dev/trellis/fan/pwm.c"),
        (
            "thinking",
            None,
            "The clamp is inverted, so a high reading pins the fan.\n\n"
            "Two fixes are possible:\n1. Swap the comparison.\n2. Add a hysteresis band.\n\n"
            "The first is defined as:\n```c\nif (reading > limit)\n\n    duty = 100;\n```\n\n"
            "The first is smaller.",
        ),
        (
            "reply",
            None,
            "The clamp in `pwm.c` is inverted: readings above the limit pin the fan.\n\n"
            "Swapping the comparison fixes it.",
        ),
    ]


def test_an_empty_thinking_marker_leaves_the_reply_a_reply() -> None:
    text = "assistant:\n[Thinking] \nThe fan runs at 40 percent now.\n"
    assert parts(text) == [("reply", None, "The fan runs at 40 percent now.")]


def test_think_tags_are_thinking_wherever_they_stand() -> None:
    """Some builds wrap thinking in `<think>` tags: on lines of their own, or inline
    with the reply that follows, or after a call's arguments."""
    text = (
        "assistant:\n<think>\nThe fan log may show when it started.\n</think>\n"
        "Reading the fan log first.\n\n"
        "[Tool call] Shell\n  command: tail -n 20 /var/log/fan.log\n"
        "<think>The log confirms the pin.</think>\n\n[Tool result] Shell\n\n"
        "assistant:\n<think>Pinned since the firmware update.</think>"
        "It is pinned since the update.\n"
    )
    assert parts(text) == [
        ("thinking", None, "The fan log may show when it started."),
        ("reply", None, "Reading the fan log first."),
        ("tool_call", "Shell", "command: tail -n 20 /var/log/fan.log"),
        ("thinking", None, "The log confirms the pin."),
        ("thinking", None, "Pinned since the firmware update."),
        ("reply", None, "It is pinned since the update."),
    ]


def test_an_argument_running_over_lines_is_kept_whole() -> None:
    """A value's own lines are written as they are, at the left margin or indented, blank
    ones too; the call runs to the next marker. A value's `=` is no argument's."""
    text = (
        "assistant:\nWriting the notes and the fix.\n"
        "[Tool call] Write\n  path: /home/dev/trellis/fan/README.md\n"
        "  contents: # Fan controller\n\nThe duty is clamped between 20 and 100.\n"
        "  retries = 3\n"
        "[Tool call] StrReplace\n  path: fan/pwm.c\n  old_string: if (reading > limit)\n"
        "    duty = 100;\n  new_string: if (reading < limit)\n    duty = 100;\n\n"
        "[Tool result] Write\n\n[Tool result] StrReplace\n"
    )
    assert parts(text) == [
        ("reply", None, "Writing the notes and the fix."),
        (
            "tool_call",
            "Write",
            "path: /home/dev/trellis/fan/README.md\ncontents: # Fan controller\n\n"
            "The duty is clamped between 20 and 100.\n  retries = 3",
        ),
        (
            "tool_call",
            "StrReplace",
            "path: fan/pwm.c\nold_string: if (reading > limit)\n    duty = 100;\n"
            "new_string: if (reading < limit)\n    duty = 100;",
        ),
    ]
