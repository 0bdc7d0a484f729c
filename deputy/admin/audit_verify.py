"""`deputy audit verify`: check every user's audit trail (or one) and say what was checked.

Exits 0 when every trail is intact, 1 naming the first bad entry (or the checkpoint of folded
entries) of each broken trail. The last seal of each trail is printed: note it somewhere outside
Redis, and a later run that shows an older one means the newest entries were cut off.
"""

from __future__ import annotations

from typing import Callable

from redis import Redis

from deputy.sentinel.stores.audit import AuditLog, audited_users


def verify_trails(redis: Redis, key: bytes, user: int | None, say: Callable[[str], None]) -> int:
    log = AuditLog(redis, key)
    users = [user] if user is not None else audited_users(redis)
    broken = entries = 0
    for user_id in users:
        check = log.check(user_id)
        entries += check.entries
        if check.intact:
            earlier = f", after {check.folded} folded into a sealed checkpoint" if check.folded else ""
            say(f"user {user_id}: {check.entries} entries{earlier}, intact (last seal {check.tip[:16]})")
            continue
        broken += 1
        if check.bad_position == 0:
            where = "its checkpoint of folded entries"
        elif check.bad_entry:
            where = f"entry {check.bad_entry} (number {check.bad_position})"
        else:
            where = "its first entry"
        say(f"user {user_id}: TAMPERED: {where}: {check.problem}")
    if not users:
        say("No audit trail found in this Redis.")
    summary = f"Checked {len(users)} user(s), {entries} entries up to the first problem"
    if broken:
        say(f"{summary}: {broken} trail(s) failed verification.")
        return 1
    say(f"Checked {len(users)} user(s), {entries} entries: every trail is intact.")
    return 0
