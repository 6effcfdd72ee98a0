"""Ranking that knows which kind of query it has, and scores sessions on match strength."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CLI, index
from transcripts import Transcript, project_dir

from findsession.embeddings.base import Embedder
from findsession.indexing.embed import embed_pending
from findsession.query import Query
from findsession.search.engine import search
from findsession.search.filters import SearchOptions
from findsession.storage.sqlite import Store

SESSIONS = {
    # Holds the product names verbatim, in passing, about something else.
    "mention": (
        "GitHub's pull requests page and JavaScript bundle sizes, just listing what we use",
        "Noted: GitHub for hosting, JavaScript for the front end.",
    ),
    # What the sentence below describes, in other words.
    "bot": (
        "the automation keeps reopening the dependency update PRs after I close them",
        "The bot re-opens them on every schedule run; I configured it to ignore closed ones.",
    ),
    "other": ("rename the CLI flags to kebab case", "Renamed them and updated the help text."),
}


@pytest.fixture
def corpus(store: Store, projects: Path, embedder: Embedder) -> Store:
    for name, (prompt, reply) in SESSIONS.items():
        t = Transcript(session_id=name, cwd="/home/dev/code/app")
        t.prompt(prompt).reply(reply)
        t.write(project_dir(projects, "/home/dev/code/app"))
    index(store, projects)
    embed_pending(store, embedder)
    return store


def test_a_few_typed_terms_are_keywords_and_a_sentence_is_not() -> None:
    assert Query.parse("roofline.md GMAC/s").looks_like_keywords
    assert Query.parse("进度栏 香蕉").looks_like_keywords
    assert not Query.parse("把法院那个app写进手机日历的开庭提醒改成整天显示").looks_like_keywords
    sentence = "when GitHub's automation kept reopening the update pull requests I had closed"
    assert not Query.parse(sentence).looks_like_keywords


def test_a_sentence_pins_no_session_for_a_name_it_holds(corpus: Store, embedder: Embedder) -> None:
    """A proper noun in a sentence ("GitHub's") looks like an identifier; pinned, the session
    that merely names it came first. Typed alone, the same name still pins its holder."""
    sentence = "when GitHub's automation kept reopening the update pull requests I had closed"
    hits = search(corpus, sentence, SearchOptions(), embedder=lambda: embedder).hits
    assert [h.pinned for h in hits] == [None] * len(hits)
    assert hits[0].session.id == "bot"
    typed = search(corpus, "GitHub's JavaScript", SearchOptions(), embedder=lambda: embedder)
    assert typed.hits[0].session.id == "mention" and typed.hits[0].pinned == "identifier"


def test_the_score_is_its_parts_and_explain_shows_them(
    corpus: Store, embedder: Embedder, cli: CLI, db_path: Path
) -> None:
    hits = search(corpus, "reopening closed update PRs", SearchOptions(), lambda: embedder).hits
    first = hits[0]
    assert first.parts is not None and first.score == pytest.approx(first.parts.total)
    assert all(0.0 <= p <= 1.0 for p in (first.parts.keyword, first.parts.meaning))
    assert [h.score for h in hits if not h.pinned] == sorted(
        (h.score for h in hits if not h.pinned), reverse=True
    )
    cli.env["FINDSESSION_DB"] = str(db_path)
    data = cli.json("search", "reopening closed update PRs")
    parts = data["results"][0]["explain"]["score_parts"]
    assert sum(parts.values()) == pytest.approx(data["results"][0]["score"], abs=1e-3)
    shown = cli.run("search", "reopening closed update PRs", "--explain").stdout
    assert "= ranks " in shown and "+ meaning " in shown


def test_a_query_in_another_language_drops_that_languages_function_words() -> None:
    french = Query.parse("quand l'enregistrement dans le panneau semblait ne rien faire, c'était")
    assert set(french.content) == {"l'enregistrement", "panneau", "semblait", "rien", "faire,"}
    # "die" is German's "the" and an English verb: an English sentence keeps it.
    assert "die" in Query.parse("why did the worker die after the deploy").content
    assert "die" not in Query.parse("warum ist die Anfrage in der Warteschlange").content
    # A stopword with a comma after it is still a stopword.
    assert "from" not in Query.parse("where the gain came from, and why").content


def test_a_long_sessions_second_best_turn_counts_for_less_than_a_short_ones() -> None:
    """The second-best of forty turns stands high by chance alone: two sessions whose two
    best turns match alike rank the one with fewer turns first, and its explained part
    says by how much."""
    from findsession.search.fusion import fuse
    from findsession.search.sessions import Evidence, Scale, length_discount, rank_sessions
    from findsession.storage.base import VectorMatch

    def match(unit: int, session: str, cosine: float) -> VectorMatch:
        return VectorMatch(unit, session, "turn", unit, cosine, "reply", 0, 10)

    # Each session: one strong and one fair turn, interleaved so fusion favours neither.
    vector = [match(1, "long", 0.60), match(3, "short", 0.60), match(2, "long", 0.55),
              match(4, "short", 0.55)]  # fmt: skip
    units = fuse(None, vector, 0.5, {}, 0.0)
    scale = Scale.of(None, vector, 0.30)
    alike = rank_sessions(units, Evidence(cosine=0.5), scale)
    assert {s.session_id for s in alike} == {"long", "short"}
    turns = {"long": 40, "short": 3}
    ranked = rank_sessions(units, Evidence(cosine=0.5, turns=turns), scale)
    assert [s.session_id for s in ranked] == ["short", "long"]
    second = (0.55 - 0.30) / (0.60 - 0.30)
    for s in ranked:
        assert s.parts.further == pytest.approx(second / length_discount(turns[s.session_id]))
    assert length_discount(40) > length_discount(3) > 1
