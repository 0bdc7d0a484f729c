"""One module per process: each builds its objects from `Settings`, holds its own RQ job functions,
and has a `serve()` (`deputy bot`, `deputy whatsapp`, `deputy worker`, `deputy gateway`,
`deputy executor`, `deputy connect-page`, `deputy run`, `deputy sandbox`).

Only `executor` and `connect_page` open the vault; `tests/test_process_loads.py` checks what each
process really loads.
"""
