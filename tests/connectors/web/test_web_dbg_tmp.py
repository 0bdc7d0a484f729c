import socket, time
from conftest import make_action
def test_dbg(runners, site, user_id):
    for i in range(12):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0)); closed_port = probe.getsockname()[1]
        for url in [site.url("/article"), f"http://127.0.0.1:{closed_port}/"]:
            t = time.time()
            try:
                runners.open_page(make_action("open_page", {"url": url}, user_id), "k")
            except Exception as e:
                print(i, type(e).__name__, str(e)[:80], round(time.time()-t, 2))
