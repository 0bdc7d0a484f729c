import sys; sys.path.insert(0,'/work/main/tests/connectors/calendar')
from test_calendar_failures import *
def test_x():
    objects=[EVENT.format(uid="good", title="Good one").encode()]
    with FakeServer(caldav_answers(objects)) as server:
        try:
            run(account_at(server.url), "list_events", start="2026-12-01")
        except ConnectorError as e: print("DETAIL", e.detail); raise
