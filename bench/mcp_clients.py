"""Several agents' MCP servers beside one resident service: their memory, and a search's
latency through the real MCP client over stdio.

    FINDSESSION_CONFIG=CONFIG python bench/mcp_clients.py --db COPY-OF-index-2000.db \
        [--clients 5] [--rounds 3] [--work DIR]

Starts a resident service for the index (`findsession service start`), then `--clients`
`findsession serve` processes, each driven by the MCP SDK's own client over stdio as an
agent's client drives it. Each client calls `search_conversation` for every query of
`bench/speed.py` once to warm up, then `--rounds` times more, the clients taking turns so
that no two searches compete for the two cores; the latency is the client's wall time
for one tool call (JSON-RPC over the pipes included). After the searches, the resident
and proportional memory (RSS, PSS from /proc/PID/smaps_rollup: PSS shares a page that
several processes map among them) of the service and of each `serve` process, and their
sum against the service's own. Then, with the same service, a warm CLI search: the wall
time of whole `findsession QUERY` processes it answers (`--cli` rounds of eight queries).
Stops the service at the end. Linux only (smaps_rollup).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import QUERIES  # noqa: E402  (bench/speed.py, a sibling script)


def memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Pss"):
            fields[name] = int(rest.split()[0])
    return fields["Rss"], fields["Pss"]


def tree(pid: int) -> list[int]:
    """`pid` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        at = todo.pop()
        found.append(at)
        todo += children.get(at, [])
    return found


def serve_pids(db: Path) -> list[int]:
    """The `findsession serve --db DB` processes (the clients' servers)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in argv]
        if "serve" in words and "findsession" in words and str(db) in words:
            pids.append(int(entry.name))
    return sorted(pids)


def findsession(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "findsession", *args], env=env, capture_output=True, text=True
    )


async def measure(db: Path, clients: int, rounds: int, env: dict[str, str]) -> dict:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "findsession", "serve", "--db", str(db), "--all-projects"],
        env=env,
        cwd=str(Path.home()),
    )
    async with AsyncExitStack() as stack:
        started = time.perf_counter()
        sessions = [
            await stack.enter_async_context(Client(params, read_timeout_seconds=300))
            for _ in range(clients)
        ]
        connect_s = time.perf_counter() - started
        latencies: list[float] = []
        for round_ in range(rounds + 1):
            for query in QUERIES:
                for client in sessions:
                    at = time.perf_counter()
                    result = await client.call_tool(
                        "search_conversation", {"query": query, "top": 5}
                    )
                    took = (time.perf_counter() - at) * 1000
                    if result.is_error:
                        raise SystemExit(f"search failed: {result.content[0].text}")
                    if round_:  # the first round warms every server up
                        latencies.append(took)
        status = json.loads(findsession("service", "status", "--json", env=env).stdout)
        service = memory_kb(status["pid"])
        # A server and whatever it started (none today), summed per server.
        serves = [[memory_kb(p) for p in tree(pid)] for pid in serve_pids(db)]
    latencies.sort()
    return {
        "clients": clients,
        "connect_s": round(connect_s, 2),
        "search_p50_ms": round(statistics.median(latencies), 1),
        "search_p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1),
        "searches": len(latencies),
        "service_rss_mb": round(service[0] / 1024, 1),
        "service_pss_mb": round(service[1] / 1024, 1),
        "serve_rss_mb": [round(sum(r for r, _ in procs) / 1024, 1) for procs in serves],
        "serve_pss_mb": [round(sum(p for _, p in procs) / 1024, 1) for procs in serves],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="the index (a copy: it is used)")
    parser.add_argument("--clients", type=int, default=5, help="MCP servers (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    parser.add_argument("--cli", type=int, default=2, help="warm CLI rounds (default 2)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/findsession-bench"))
    args = parser.parse_args()
    run = args.work / "run"
    run.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {**os.environ, "FINDSESSION_DB": str(args.db), "XDG_RUNTIME_DIR": str(run)}
    started = findsession("service", "start", env=env)
    if started.returncode:
        raise SystemExit(f"the service did not start: {started.stderr}")
    try:
        row = asyncio.run(measure(args.db, args.clients, args.rounds, env))
        walls = []
        for query in QUERIES[:8] * args.cli:
            started_at = time.perf_counter()
            findsession(query, env=env)
            walls.append(time.perf_counter() - started_at)
        if walls:
            row["warm_cli_p50_s"] = round(statistics.median(walls), 3)
    finally:
        findsession("service", "stop", env=env)
    for kind in ("rss", "pss"):
        total = row[f"service_{kind}_mb"] + sum(row[f"serve_{kind}_mb"])
        row[f"total_{kind}_mb"] = round(total, 1)
        row[f"total_{kind}_ratio"] = round(total / row[f"service_{kind}_mb"], 2)
    print(json.dumps(row, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
