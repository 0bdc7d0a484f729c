"""The chat front end (python-telegram-bot): turns messages into goals and button presses into
decisions, and sends what the workers put in the outbox. It never loads the vault, the executor or
the credential page."""
