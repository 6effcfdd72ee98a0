"""Time to first results on the web page against the CLI's `--json`, one warm index.

    FINDSESSION_CONFIG=/nonexistent.toml python bench/web.py --db INDEX [--rounds 3]

Opens the index once (a copy: the given file is only read if you pass a copy), starts
the page server on 127.0.0.1 in this process over that warm `Findsession`, warms both
paths with every `bench/speed.py` query, then alternates, per query and round: the
page's search API over HTTP (a real socket, the token header, the JSON the page reads)
and what `findsession search --json` does in a warm process (`fs.search`, the
`jsonout` builder, `dumps`). Prints per-path medians and p95, and the median of the
per-query ratios (HTTP / direct): what the page adds on top of the search itself.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import QUERIES  # noqa: E402

from findsession import jsonout  # noqa: E402
from findsession.api import Findsession, SearchOptions  # noqa: E402
from findsession.protocol.operations import answer  # noqa: E402
from findsession.protocol.requests import Answer, Request  # noqa: E402
from findsession.web.server import PageServer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    fs = Findsession.open(args.db)
    lock = threading.Lock()

    def ask(request: Request) -> Answer:
        with lock:
            return answer(fs, request)

    page = PageServer(ask)
    page.start()
    link = page.link()
    with urllib.request.urlopen(link) as response:  # a link sets the session's cookie
        session = response.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    base = link.split("?")[0] + "api/search?"
    headers = {"X-Findsession-Token": session}

    def over_http(query: str) -> float:
        url = base + urllib.parse.urlencode({"q": query, "top": 10})
        started = time.perf_counter()
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as r:
            r.read()
        return (time.perf_counter() - started) * 1000

    def direct(query: str) -> float:
        started = time.perf_counter()
        with lock:
            response = fs.search(query, SearchOptions(top=10))
            jsonout.dumps(jsonout.search_json(response))
        return (time.perf_counter() - started) * 1000

    for query in QUERIES:  # the model, the vectors and the pages load here
        direct(query)
        over_http(query)
    http_ms, direct_ms, ratios = [], [], []
    for _ in range(args.rounds):
        for query in QUERIES:
            a, b = over_http(query), direct(query)
            http_ms.append(a)
            direct_ms.append(b)
            ratios.append(a / b)
    status = fs.status()
    print(
        f"index: {args.db.name}, {status.sessions} sessions; {len(QUERIES)} queries x {args.rounds}"
    )
    print(f"{'path':<34} {'median ms':>10} {'p95 ms':>10}")
    for name, times in (
        ("page: GET /api/search (HTTP)", http_ms),
        ("CLI --json, warm (in-process)", direct_ms),
    ):
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        print(f"{name:<34} {statistics.median(times):>10.1f} {p95:>10.1f}")
    print(f"median ratio page / CLI: {statistics.median(ratios):.2f}")
    page.stop()
    fs.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
