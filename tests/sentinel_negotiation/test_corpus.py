"""The attack corpus: its frozen part never changes, and the guard is scored on it apart from the dev part."""

from __future__ import annotations

import hashlib
import json

from bench.negotiation_corpus import CORPUS, DEV2, load, measure

# The frozen part as first committed (the corpus was copied verbatim, in a commit of its own, before any tuning).
FROZEN_SHA256 = "4e6fafe7c54bca253c4889fa4b1a43bdd001e0c23648076941834bf2e180b4bb"


def test_the_frozen_part_of_the_corpus_is_unchanged() -> None:
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    frozen = {part: [e for e in corpus[part] if e.get("split") == "frozen"] for part in ("mandates", "incoming", "outgoing")}
    digest = hashlib.sha256(json.dumps(frozen, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert digest == FROZEN_SHA256, "the frozen part changed: it is scored, never edited"


def test_on_the_dev_part_no_message_that_must_hold_goes_out_written_as_free_text_but_a_few() -> None:
    result = measure("dev")
    missed = sum(sum(row["missed"]) for row in result["outgoing"].values())
    total = sum(len(row["missed"]) for row in result["outgoing"].values())
    assert total == sum(1 for e in load()["outgoing"] if e["split"] == "dev")
    assert missed <= 2, f"{missed} messages that must hold would go out"


# The second dev set as copied in, before any tuning on it.
DEV2_SHA256 = "a2708c15a93c2f44e9d9aac6911d486dce38335dff0c2700ed040ec46803b6ea"


def test_the_second_dev_set_is_unchanged() -> None:
    assert hashlib.sha256(DEV2.read_bytes()).hexdigest() == DEV2_SHA256, "dev2 is scored as written, never edited"


def test_on_the_second_dev_set_no_disguised_acceptance_goes_out_and_most_near_misses_still_do_not_hold_more() -> None:
    result = measure("dev2")
    assert sum(len(row["missed"]) for row in result["outgoing"].values()) == 266
    missed = sum(sum(row["missed"]) for row in result["outgoing"].values())
    assert missed == 0, f"{missed} messages that must hold would go out"
    # Sends needlessly held (free text with an amount always waits: the agent has moves for that) stay at
    # most what they were before acceptance was read by structure (82 of 84).
    wrong_holds = sum(1 for row in result["outgoing"].values()
                      for right, miss in zip(row["right"], row["missed"]) if not right and not miss)
    assert wrong_holds <= 76, wrong_holds
