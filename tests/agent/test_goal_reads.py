"""What a goal read from outside is kept beside its record: the record stays small, nothing read is lost.

A long goal's checkpoint no longer grows with every page it reads, yet the guard still traces a
value to what the goal read at its very start. Old records that carry their reads inline still
load, and move them out at their next save; two savers of the same checkpoint never repeat or
lose a read; a copy parsed without its reads can never be saved; a confidential user's reads
are sealed one by one, and the ones stored before the mode was turned on are sealed with it.
"""

from __future__ import annotations

import json

import pytest
from redis import Redis

from deputy.agent.confidential_records import seal_existing
from deputy.agent.goal_reads import ReadsNotLoaded, reads_key
from deputy.agent.goals import ConcurrentUpdate, Goal, GoalStore, goal_key
from deputy.agent.guard_view import guard_view
from deputy.agent.model.testing import tool_call
from deputy.core.confidential import ConfidentialKeys, Locked
from deputy.core.confidential.sealing import is_sealed
from deputy.executor.erasure import erase_user
from deputy.sentinel.provenance import UntrustedItem
from deputy.sentinel.stores.audit import AuditLog
from tests.agent.test_model_text_provenance import ATTACKER_URL, Rig
from tests.e2e.test_confidential_flow import leaks
from tests_support import everything_in_redis

USER = 5_300_001
PAGE = "The harbour committee met on Tuesday about the tram line, the library and the ferry timetable. " * 120


def item(text: str, origin: str = "the web page https://news.example/") -> UntrustedItem:
    return UntrustedItem(origin=origin, text=text, at=1.0)


def new_goal(goal_id: str = "g_reads", user_id: int = USER, **fields) -> Goal:
    return Goal(id=goal_id, user_id=user_id, chat_id=user_id, text="read the news for me", created_at=1.0,
                updated_at=1.0, messages=[{"role": "user", "content": "read the news for me"}], **fields)


def texts(goal: Goal | None) -> list[str]:
    assert goal is not None
    return [i.text for i in goal.untrusted]


class LivePages(dict):
    """News pages that change between reads: every read is new outside content, as on a live site."""

    def __init__(self) -> None:
        super().__init__()
        self.editions = 0

    def get(self, url, default=None):
        self.editions += 1
        return f"Edition {self.editions} of {url}. " + PAGE


def test_a_long_goal_keeps_a_small_record_and_still_traces_what_it_read_at_its_start(redis: Redis) -> None:
    """120 steps of reading 12,000-character pages: the record late in the goal is the record at step 20, give
    or take a few KB, and the address an email gave at step 1 still makes the guard ask at the end."""
    steps, sizes = 120, {}
    urls = [f"https://news.example/story-{i}" for i in range(6)]

    def decide(messages, tools):
        step = len(rig.model.calls)
        sizes[step] = len(redis.get(goal_key(goal_id)) or b"")  # the checkpoint this step starts from
        if step == 1:
            return tool_call("read_email", message_id="evil")  # the email names the attacker's address
        if step < steps:
            return tool_call("open_page", url=f"{urls[step % len(urls)]}?page={step}")
        if step == steps:
            return tool_call("open_page", url=ATTACKER_URL)  # what the email asked for, 120 steps later
        return tool_call("reply", text="Here is the news.")

    rig = Rig(redis, decide)
    rig.world.pages = LivePages()
    goal_id = f"g_{rig.user}_0"
    rig.start("check my email, then keep reading these for news: " + " ".join(urls))

    goal = rig.goals.get(goal_id)
    assert len(goal.untrusted) >= steps - 1, "every page read is kept for the guard"
    assert redis.llen(reads_key(goal_id)) == goal.reads_stored == len(goal.untrusted)
    # The transcript folds every dozen steps or so (its window of pages fills, then shrinks): compare the
    # largest record of a window of steps early on with that of the last steps.
    early, late = max(sizes[s] for s in range(20, 41)), max(sizes[s] for s in range(steps - 20, steps + 1))
    assert late - early < 4 * 1024, f"the record grew from {early} to {late} bytes"
    read = sum(len(e) for e in redis.lrange(reads_key(goal_id), 0, -1))
    assert sizes[steps] < read / 10, "the record keeps only the transcript's window of what was read"
    # The guard still traces the attacker's address to the email read at the start: it asks first.
    assert rig.verdict("open_page", ATTACKER_URL) == "asked"
    [review] = [e for e in AuditLog(redis).entries(rig.user)
                if e.kind == "review" and ATTACKER_URL in e.detail["targets"]]
    assert any("the email from billing@attacker.example" in value for value in review.detail["untrusted"])


def test_saves_append_only_what_was_read_since_and_loads_return_it_all_in_order(redis: Redis) -> None:
    goals = GoalStore(redis)
    goal = goals.save(new_goal(untrusted=[item("first page")]))
    for n in range(2, 5):
        goal = goals.get(goal.id)
        goal.untrusted.append(item(f"page {n}"))
        goal = goals.save(goal)
    goal.step += 1
    goals.save(goal)  # a step that read nothing appends nothing

    assert texts(goals.get(goal.id)) == ["first page", "page 2", "page 3", "page 4"]
    assert redis.llen(reads_key(goal.id)) == 4
    assert b"page 3" not in redis.get(goal_key(goal.id))


def test_an_old_record_with_its_reads_inline_loads_and_moves_them_beside_it_at_its_next_save(redis: Redis) -> None:
    old = new_goal("g_old", schema_version=2, revision=4).model_dump(mode="json", exclude={"reads_stored"})
    old["untrusted"] = [item("an invoice from billing@evil.example").model_dump(mode="json"),
                        item("a page about trams").model_dump(mode="json")]
    redis.set(goal_key("g_old"), json.dumps(old))
    goals = GoalStore(redis)

    loaded = goals.get("g_old")
    assert texts(loaded) == ["an invoice from billing@evil.example", "a page about trams"]
    assert [i.text for i in guard_view(goals, loaded).untrusted] == texts(loaded)
    loaded.untrusted.append(item("a third read"))
    goals.save(loaded)

    record = json.loads(redis.get(goal_key("g_old")))
    assert "untrusted" not in record and record["reads_stored"] == 3 and record["schema_version"] == 3
    again = goals.get("g_old")
    assert texts(again) == ["an invoice from billing@evil.example", "a page about trams", "a third read"]
    goals.save(again)
    assert redis.llen(reads_key("g_old")) == 3, "saved again: nothing appended twice"


def test_two_savers_of_the_same_checkpoint_neither_repeat_nor_lose_a_read(redis: Redis) -> None:
    goals = GoalStore(redis)
    goals.save(new_goal(untrusted=[item("read before")]))
    mine, theirs = goals.get("g_reads"), goals.get("g_reads")
    theirs.untrusted.append(item("their read"))
    goals.save(theirs)
    mine.untrusted.append(item("my read"))
    with pytest.raises(ConcurrentUpdate):
        goals.save(mine)
    assert texts(goals.get("g_reads")) == ["read before", "their read"]

    def read(text: str):
        def change(goal: Goal) -> Goal:
            goal.untrusted.append(item(text))
            return goal
        return change

    goals.update("g_reads", read("my read"))  # retried from the new checkpoint
    # The transactional path too: another save lands while this one decides, so it decides again.
    interrupted = []

    def racing(goal: Goal) -> Goal:
        if not interrupted:
            interrupted.append(goals.update("g_reads", read("a racing read")))
        goal.untrusted.append(item("a read with its job"))
        return goal

    goals.update("g_reads", racing, also=lambda pipe, saved: pipe.set("deputy:test:job", saved.revision))
    assert texts(goals.get("g_reads")) == ["read before", "their read", "my read", "a racing read",
                                           "a read with its job"]
    assert redis.llen(reads_key("g_reads")) == 5


def test_a_goal_parsed_without_its_reads_can_never_be_saved(redis: Redis) -> None:
    goals = GoalStore(redis)
    goals.save(new_goal(untrusted=[item("the email with the address")]))
    peeked = goals.parse(redis.get(goal_key("g_reads")), reads=None)
    assert peeked.untrusted == []
    peeked.untrusted.append(item("a new read"))
    with pytest.raises(ReadsNotLoaded):
        goals.save(peeked)
    with pytest.raises(ReadsNotLoaded):
        goals.save(peeked.model_copy(update={"step": 3}))
    assert texts(goals.get("g_reads")) == ["the email with the address"]


def test_a_new_goal_made_from_a_stored_one_starts_with_everything_it_carries(redis: Redis) -> None:
    """A part or a follow-up copies what its goal read: its own list gets all of it, whatever count it copied."""
    goals = GoalStore(redis)
    parent = goals.save(new_goal(untrusted=[item("one"), item("two")]))
    child = parent.model_copy(update={"id": "g_child", "revision": -1, "parent_id": parent.id})
    goals.save(child)
    assert texts(goals.get("g_child")) == ["one", "two"]

    pipe = redis.pipeline()
    GoalStore.queue_create(pipe, new_goal("g_queued", untrusted=[item("carried over")]))
    pipe.execute()
    assert texts(goals.get("g_queued")) == ["carried over"]


def test_a_confidential_users_reads_are_sealed_each_and_those_from_before_are_sealed_at_turn_on(
        redis: Redis) -> None:
    secret, later = "persimmon-harbour-5521", "okapi-tram-0917"
    goals = GoalStore(redis)
    goals.save(new_goal(untrusted=[item(f"the code is {secret}")]))
    assert secret in everything_in_redis(redis)

    keys = ConfidentialKeys(redis, b"u" * 32)
    keys.turn_on(USER, "the passphrase only I know")
    keys.unlock(USER, "the passphrase only I know", 3600)
    sealed = seal_existing(redis, USER, keys)
    assert sealed >= 2  # the record and its read
    goals = GoalStore(redis, keys)
    goal = goals.get("g_reads")
    goal.untrusted.append(item(f"and then {later}"))
    goals.save(goal)

    assert all(is_sealed(e) for e in redis.lrange(reads_key("g_reads"), 0, -1))
    assert not (found := leaks(redis, [secret, later])), found
    assert texts(goals.get("g_reads")) == [f"the code is {secret}", f"and then {later}"]
    keys.lock(USER)
    with pytest.raises(Locked):
        goals.get("g_reads")


def test_the_reads_go_with_the_goal_when_the_user_is_erased(redis: Redis) -> None:
    goals = GoalStore(redis)
    goals.save(new_goal(untrusted=[item("a page only this user read")]))
    goals.save(new_goal("g_other", user_id=USER + 1, untrusted=[item("someone else's page")]))
    erase_user(redis, USER)
    assert not redis.exists(reads_key("g_reads")) and not redis.exists(goal_key("g_reads"))
    assert texts(goals.get("g_other")) == ["someone else's page"]
    assert "only this user" not in everything_in_redis(redis)
