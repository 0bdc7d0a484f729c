"""The egress guard: may this outgoing network request leave, and with this data in it?

`policy` (with `context`, `checks`, `url`, `ip`, `leaks` and `endpoint`) decides, purely;
`transports` are the IO edges that resolve, pin and send through that decision, for
httpx, httpx2, niquests, raw sockets and Chromium.
"""
