"""The calendar connector: list, find free time, create, move and cancel events over CalDAV.

Works with any CalDAV server (Google, iCloud, Fastmail, Nextcloud, Radicale). Pure cores
(`timezones`, `events`, `ical`, `freebusy`, `render`) do the thinking; `client` is the
only module that talks to the server, and `runners` wires both to the executor.

This package's `__init__` loads nothing: import each module by its full path (only the executor
imports the runners).
"""
