"""The connect page: the private web form through which credentials reach the vault.

`forms` says what each connectable service asks for; `page` serves a one-time link's
form and stores the answers. With the executor, this is the only package that opens the
vault; the chat never carries a password.
"""
