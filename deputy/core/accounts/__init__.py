"""Who the users are and what they chose: accounts and plans, quotas, settings, approval mode,
linked chat apps, connect links and what each user connected (without a secret)."""
