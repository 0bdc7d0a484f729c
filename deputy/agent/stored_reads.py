"""What a goal read, fetched from its reads list only when something looks at it.

Most steps never look at what the goal read before: they call the model on the transcript's
window, record the page the last action returned and save. Loading the goal's whole reads list
for each of them made every step read everything the goal had ever read (half a megabyte at
step 200). `StoredReads` is the `Goal.untrusted` of a goal loaded from Redis: it holds only what
was appended since the load, and answers `len` from the count the record keeps; anything that
looks at the items (iterating, indexing, `in`, comparing, copying, dumping) first fetches the
stored ones, in one `LRANGE`, so whoever reads `goal.untrusted` sees every item, exactly as
before. Saving needs only the appended items, so a step that only reads and saves fetches none.

The list is append-only and never rewritten (`deputy.agent.goal_reads`), so the items fetched
late are the ones there were at the load; a list that holds fewer (the goal was erased since)
raises `ReadsNotLoaded` rather than let a partial history pass for the whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, SupportsIndex

from deputy.agent.goal_reads import ReadsNotLoaded
from deputy.sentinel.provenance import UntrustedItem

Fetch = Callable[[int], list[UntrustedItem]]
"""Returns the first `count` items of the goal's reads list, opened."""


class StoredReads(list):  # type: ignore[type-arg]
    """A goal's reads: the first `stored` ones in Redis until something looks at them, then here too."""

    def __init__(self, fetch: Fetch, stored: int) -> None:
        super().__init__()
        self._fetch: Fetch | None = fetch
        self._missing = stored  # how many items at the front are still only in Redis
        self.stored = stored
        """How many of the items the reads list holds (moves on when a save appends the rest)."""

    @property
    def fetched(self) -> bool:
        """Whether the stored items were fetched (something looked at them)."""
        return self._missing == 0

    def appended(self) -> list[UntrustedItem]:
        """The items after the first `stored` ones (what a save appends), without fetching any."""
        start = self.stored - self._missing
        return list.__getitem__(self, slice(max(start, 0), None))

    def mark_stored(self, count: int) -> None:
        """A save appended everything up to `count` to the reads list."""
        self.stored = count

    def _load(self) -> None:
        if self._missing == 0 or self._fetch is None:
            return
        items = self._fetch(self._missing)
        if len(items) != self._missing:
            raise ReadsNotLoaded("the goal's reads list no longer holds what it held when the goal was loaded")
        list.__setitem__(self, slice(0, 0), items)
        self._missing, self._fetch = 0, None

    # Answered without fetching.
    def __len__(self) -> int:
        return self._missing + list.__len__(self)

    # Whatever looks at the items fetches them first.
    def __iter__(self) -> Iterator[UntrustedItem]:
        self._load()
        return list.__iter__(self)

    def __reversed__(self) -> Iterator[UntrustedItem]:
        self._load()
        return list.__reversed__(self)

    def __getitem__(self, index: Any) -> Any:
        self._load()
        return list.__getitem__(self, index)

    def __contains__(self, item: object) -> bool:
        self._load()
        return list.__contains__(self, item)

    def __eq__(self, other: object) -> bool:
        self._load()
        return list(list.__iter__(self)) == (list(other) if isinstance(other, list) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._load()
        return list.__repr__(self)

    def __add__(self, other: Any) -> list[UntrustedItem]:  # type: ignore[override]
        return [*self, *other]

    def __radd__(self, other: Any) -> list[UntrustedItem]:
        return [*other, *self]

    def __mul__(self, times: SupportsIndex) -> list[UntrustedItem]:  # type: ignore[override]
        return list(self) * times

    def copy(self) -> list[UntrustedItem]:
        return list(self)

    def index(self, *args: Any) -> int:  # type: ignore[override]
        self._load()
        return list.index(self, *args)

    def count(self, item: Any) -> int:
        self._load()
        return list.count(self, item)

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        # Copied or pickled as the plain list of every item.
        return (list, (list(self),))

    def __deepcopy__(self, memo: dict[int, Any]) -> list[UntrustedItem]:
        import copy
        return copy.deepcopy(list(self), memo)

    # Changes other than appending act on every item: fetch them first.
    def __setitem__(self, index: Any, value: Any) -> None:
        self._load()
        list.__setitem__(self, index, value)

    def __delitem__(self, index: Any) -> None:
        self._load()
        list.__delitem__(self, index)

    def insert(self, index: SupportsIndex, item: Any) -> None:
        self._load()
        list.insert(self, index, item)

    def pop(self, index: SupportsIndex = -1) -> Any:
        self._load()
        return list.pop(self, index)

    def remove(self, item: Any) -> None:
        self._load()
        list.remove(self, item)

    def clear(self) -> None:
        self._load()
        list.clear(self)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._load()
        list.sort(self, *args, **kwargs)

    def reverse(self) -> None:
        self._load()
        list.reverse(self)

    def __imul__(self, times: SupportsIndex) -> Any:
        self._load()
        return list.__imul__(self, times)


__all__ = ["Fetch", "StoredReads"]
