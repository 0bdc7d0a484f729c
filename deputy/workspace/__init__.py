"""The user's workspace of files, and running untrusted code over them."""

from deputy.workspace.confined_run import (
    ConfinementUnavailable,
    RunLimits,
    RunResult,
    confinement_available,
    run_confined,
)

__all__ = ["ConfinementUnavailable", "RunLimits", "RunResult", "confinement_available", "run_confined"]
