"""Files users send are kept in Redis per user, with a size bound and an expiry, and read by id."""

from __future__ import annotations

import pytest
from redis import Redis

from deputy.agent.attachments import Attachment, UnreadableFile
from deputy.agent.goals import Goal, GoalStore
from deputy.agent.reading import Reading
from deputy.agent.uploads import UPLOAD_TTL_SECONDS, Uploads

ANN, BOB = 31, 32


def goal_with(attachment: Attachment, user_id: int = ANN) -> Goal:
    return Goal(id="g_upload", user_id=user_id, chat_id=user_id, text="look at this", attachments=[attachment],
                messages=[{"role": "user", "content": "look at this"}], created_at=1.0, updated_at=1.0)


def test_a_file_is_read_back_by_its_owner_only(redis: Redis) -> None:
    uploads = Uploads(redis)
    attachment = uploads.put(ANN, "notes.txt", "text/plain", b"Ann's shopping notes")

    assert uploads.read(ANN, attachment) == b"Ann's shopping notes"
    # Bob's goal naming Ann's file id finds nothing: files are keyed by their owner.
    with pytest.raises(UnreadableFile, match="I no longer have notes.txt; please send it again."):
        uploads.read(BOB, attachment)
    assert 0 < redis.ttl(f"deputy:upload:{ANN}:{attachment.file_id}") <= UPLOAD_TTL_SECONDS


def test_files_over_the_limits_are_refused_before_anything_is_stored(redis: Redis) -> None:
    with pytest.raises(ValueError, match="up to 10 MB"):
        Uploads(redis).put(ANN, "huge.png", "image/png", b"\0" * (10 * 1024 * 1024 + 1))
    assert not list(redis.scan_iter("deputy:upload:*"))


def test_a_worker_reads_the_file_into_the_goal_and_an_expired_one_is_asked_for_again(redis: Redis) -> None:
    uploads = Uploads(redis)
    reading = Reading(GoalStore(redis), None, lambda: 1.0, uploads)
    kept = goal_with(uploads.put(ANN, "recipe.txt", "text/plain", b"basil, pine nuts, parmesan"))

    assert reading.read_attachments(kept) is None
    assert "pine nuts" in str(kept.messages[-1]["content"]) and kept.attachments == []

    gone = uploads.put(ANN, "old.txt", "text/plain", b"expired soon")
    redis.delete(f"deputy:upload:{ANN}:{gone.file_id}")  # what the expiry does
    assert reading.read_attachments(goal_with(gone)) == "I no longer have old.txt; please send it again."


def test_a_forged_file_id_is_refused(redis: Redis) -> None:
    forged = Attachment(name="x.txt", mime_type="text/plain", size=1, file_id="f_a:*")
    with pytest.raises(UnreadableFile):
        Uploads(redis).read(ANN, forged)


def test_erase_removes_every_file_of_the_user_and_no_other(redis: Redis) -> None:
    uploads = Uploads(redis)
    for n in range(3):
        uploads.put(ANN, f"a{n}.txt", "text/plain", b"ann")
    bobs = uploads.put(BOB, "b.txt", "text/plain", b"bob")

    assert uploads.erase(ANN) == 3
    assert not list(redis.scan_iter(f"deputy:upload:{ANN}:*"))
    assert uploads.read(BOB, bobs) == b"bob"


def _crafted_pdf() -> bytes:
    """A one-page PDF of ~80 KB whose font's character map inflates to 80 MB when its text is read."""
    import zlib

    bomb = zlib.compress(b" " * 80_000_000, 9)
    text = b"BT /F1 12 Tf 72 720 Td (Hello) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(bomb) + bomb + b"\nendstream",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_a_pdf_built_to_exhaust_the_reader_gets_a_plain_answer_not_a_crash(redis: Redis) -> None:
    uploads = Uploads(redis)
    reading = Reading(GoalStore(redis), None, lambda: 1.0, uploads)
    bomb = goal_with(uploads.put(ANN, "invoice.pdf", "application/pdf", _crafted_pdf()))

    answer = reading.read_attachments(bomb)
    assert answer is not None and "invoice.pdf" not in answer and "couldn't read it" in answer
