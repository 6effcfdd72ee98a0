"""Which embedding model an index run uses, and whether to tell the user to switch.

The English model turns Chinese, Japanese, Korean and most other non-Latin text into
noise; the multilingual one reads them but embeds about half as fast on a laptop CPU.
So the choice follows the corpus: `model = "auto"` takes the multilingual model once a
noticeable share of turns is in another script, and a fixed English model gets advice.
Once an index holds multilingual vectors, `auto` keeps them: switching back would
re-embed everything to read less. The corpus is read only when there is something to
embed, so a no-op run costs nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass

from findsession.embeddings import (
    AUTO,
    ENGLISH_MODEL,
    MULTILINGUAL_MODEL,
    Embedder,
    EmbeddingSettings,
    bundled_model_setting,
    configured_embedder,
    model_of_identity,
)
from findsession.storage.views import IndexStore
from findsession.writing_systems import SAMPLE_CHARS, ScriptShare, script_share

#: Share of turns in non-Latin scripts from which the English model is the wrong one.
SWITCH_SHARE = 0.05
#: Recent turns sampled: enough to see a habit, few enough to cost milliseconds.
SAMPLE_TURNS = 3000


@dataclass
class ModelChoice:
    """The model to embed with, and a sentence for the user when the corpus says more."""

    model: str | None  # the bundled model in use; None for another provider
    scripts: ScriptShare | None = None
    advice: str | None = None


def corpus_scripts(store: IndexStore) -> ScriptShare:
    """Scripts of the most recent turns people and agents typed (tool output left out)."""
    rows = store.recent_turn_texts(SAMPLE_TURNS, SAMPLE_CHARS)
    return script_share([f"{prompt} {reply}" for prompt, reply in rows])


def choose_model(store: IndexStore, settings: EmbeddingSettings) -> ModelChoice:
    """Resolve `auto` for this index, or advise when a fixed model cannot read the corpus."""
    wanted = bundled_model_setting(settings)
    if wanted is None or wanted == MULTILINGUAL_MODEL:
        return ModelChoice(wanted)
    current = model_of_identity(store.setting("embedding_model"))
    if wanted == AUTO and current == MULTILINGUAL_MODEL:
        return ModelChoice(MULTILINGUAL_MODEL)
    if current is not None and not store.pending_units():
        # Nothing new to embed: nothing to decide or advise, and a no-op run must not
        # read thousands of turns (0.8 s cold at 2,000 sessions). New turns decide.
        return ModelChoice(current if wanted == AUTO else wanted)
    scripts = corpus_scripts(store)
    unreadable = scripts.share >= SWITCH_SHARE
    if wanted == AUTO:
        chosen = MULTILINGUAL_MODEL if unreadable else ENGLISH_MODEL
        advice = None
        if unreadable and current == ENGLISH_MODEL:
            advice = (
                f'{scripts.share:.0%} of recent turns are in {scripts.label}: model = "auto"'
                f" switches to {MULTILINGUAL_MODEL}, which reads them"
            )
        return ModelChoice(chosen, scripts, advice)
    advice = None
    if unreadable:
        advice = (
            f"{scripts.share:.0%} of recent turns are in {scripts.label}, which {ENGLISH_MODEL}"
            f' cannot read: set [embedding] model = "{MULTILINGUAL_MODEL}" (or "auto") in'
            " the config file to search them by meaning"
        )
    return ModelChoice(wanted, scripts, advice)


def index_embedder(store: IndexStore, settings: EmbeddingSettings) -> tuple[Embedder, ModelChoice]:
    """The embedder an index run should use, with the choice behind it."""
    choice = choose_model(store, settings)
    return configured_embedder(settings, choice.model), choice
