"""How a command's run ended, read from its stored output: a test run's counts (pytest,
unittest, cargo, go, jest/vitest, mocha, rspec), an exit code, or the call's error flag.

Tool output is kept to its first few thousand characters, so a long test run's summary
line may have been cut away: then only the error flag speaks, and a run that did not
fail says `unknown` rather than guess a pass.
"""

from __future__ import annotations

import re

_TEST_COMMAND = re.compile(
    r"\b(pytest|py\.test|tox|nox|unittest|jest|vitest|mocha|rspec|phpunit|ctest|"
    r"(?:go|cargo|dotnet|mvn|gradle|gradlew|bun|deno|swift|mix|zig)\s+test|"
    r"(?:npm|yarn|pnpm)\s+(?:run\s+)?test|make\s+(?:test|check)|manage\.py\s+test)\b"
)
_COUNT = re.compile(
    r"\b(\d+) (passed|failed|errors?|passing|failing|failures?|examples?|tests? failed)\b"
)
_CARGO = re.compile(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed")
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in", re.MULTILINE)
_UNITTEST_FAILED = re.compile(r"^FAILED \((?:failures|errors)=(\d+)", re.MULTILINE)
_GO = re.compile(r"^(ok|FAIL)\s+\S+", re.MULTILINE)
#: Each summary word as one of passed, failed, error or tests (a total).
_WORDS = {"passing": "passed", "failing": "failed", "failure": "failed", "failures": "failed",
          "tests failed": "failed", "test failed": "failed", "errors": "error",
          "examples": "tests", "example": "tests"}  # fmt: skip
_EXIT = re.compile(
    r"(?:exit(?:ed)?(?: with)?(?: code| status)|exit_code|Exit code|returned)\W{0,3}(-?\d+)",
    re.IGNORECASE,
)


def is_test(command: str) -> bool:
    """Whether a command runs tests."""
    return bool(_TEST_COMMAND.search(command))


def outcome(command: str, output: str | None, failed: bool) -> tuple[str, str]:
    """(outcome, detail): `passed`/`failed` for a test run that said so, else `ok`/
    `error`, else `unknown`; `detail` is what the output said (`3 passed, 1 failed`)."""
    text = output or ""
    counts = _counts(text)
    if counts:
        bad = any(n for word, n in counts if word.startswith(("fail", "error")))
        detail = ", ".join(f"{n} {word}" for word, n in counts)
        return ("failed" if bad or failed else "passed"), detail
    if _GO.search(text) and is_test(command):
        bad = any(m.group(1) == "FAIL" for m in _GO.finditer(text))
        return ("failed" if bad or failed else "passed"), ""
    code = _EXIT.search(text)
    if code:
        value = int(code.group(1))
        return ("error" if value != 0 or failed else "ok"), f"exit code {value}"
    if failed:
        return ("failed" if is_test(command) else "error"), ""
    if output is None or "more characters not indexed]" in text[-80:] and is_test(command):
        return "unknown", ""
    return "ok", ""


def _counts(text: str) -> list[tuple[str, int]]:
    """The test counts a summary line gives, last summary first, merged by word."""
    cargo = _CARGO.findall(text)
    if cargo:
        passed = sum(int(p) for _, p, _ in cargo)
        failed = sum(int(f) for _, _, f in cargo)
        return [("passed", passed), ("failed", failed)] if failed else [("passed", passed)]
    ran = _UNITTEST_RAN.findall(text)
    if ran:
        bad = _UNITTEST_FAILED.findall(text)
        total = int(ran[-1])
        fails = int(bad[-1]) if bad else 0
        return [("passed", total - fails), ("failed", fails)] if fails else [("passed", total)]
    found: dict[str, int] = {}
    for n, word in _COUNT.findall(text[-3000:]):
        key = _WORDS.get(word, word)
        found[key] = int(n)  # the last summary wins: a rerun prints a new one
    tests = found.pop("tests", None)
    if tests is not None and "passed" not in found:
        found["passed"] = tests - found.get("failed", 0) - found.get("error", 0)
    order = ("passed", "failed", "error")
    kept = [(w, found[w]) for w in order if found.get(w)]
    return kept or ([("passed", 0)] if "passed" in found else [])
