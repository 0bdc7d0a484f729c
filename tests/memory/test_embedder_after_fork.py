"""A worker forked while another of its threads embeds (the suggestion round) can still embed.

RQ's worker forks a work horse for each job; the worker's suggestion round embeds listings in a
thread meanwhile. A fork in the middle of that computation hung in OpenBLAS's fork handler, and a
child that inherited the embedder's lock held by a thread it does not have would wait forever: the
user would hear nothing back.
"""

from __future__ import annotations

import os
import threading

import pytest

from deputy.memory.meaning import MiniLM, load_embedder


def test_a_child_forked_while_a_thread_embeds_embeds_at_once() -> None:
    """The fork waits for the embedding in progress (OpenBLAS's fork handler would otherwise wait for
    its busy thread pool forever), and the child starts with the embedder free."""
    model = load_embedder()
    if not isinstance(model, MiniLM):
        pytest.skip("the embedding model package is not installed")
    held, release = threading.Event(), threading.Event()

    def embedding_for_a_while() -> None:
        with model._lock:
            held.set()
            release.wait(1)  # the fork waits for this embedding to end

    thread = threading.Thread(target=embedding_for_a_while)
    thread.start()
    held.wait(5)
    pid = os.fork()
    if pid == 0:  # the work horse: the thread holding the lock does not exist here
        child = load_embedder()
        free = isinstance(child, MiniLM) and child._lock.acquire(timeout=3)
        if not free:
            os._exit(1)
        child._lock.release()
        os._exit(0 if child.embed(["a table for two on Friday"]).shape == (1, 384) else 2)
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        thread.join()
    assert os.waitstatus_to_exitcode(status) == 0, "the child waited for a lock no thread of its own held"

