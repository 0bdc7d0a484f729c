"""A goal's monitor: a goal that checks again later (when, how often, until when, what it reads each time)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from deputy.agent.goal_tally import DigestChoice, DigestMark
from deputy.agent.probes import Probe, ProbeState


class Monitor(BaseModel):
    """A goal that checks again later: when, how often, until when, how many times."""

    what: str = Field(max_length=300)
    every_seconds: float | None = None
    next_at: float
    until: float | None = None
    checks_done: int = 0
    max_checks: int = 20
    probe: Probe | None = Field(default=None, description="A read run at each check; the model wakes only on news.")
    probe_state: ProbeState = Field(default_factory=ProbeState)
    call_id: str | None = Field(default=None, description="The schedule_check call that set this monitor.")
    setup_note: str | None = Field(default=None, description="That call's answer, once the first reading is in.")
    setup_failed: bool = False
    probe_runs: int = 0
    news: int = Field(default=0, description="Checks whose probe found something new.")
    probe_action_id: str | None = Field(default=None, description="The probe action the goal waits for, if any.")
    timezone: str = Field(default="UTC", description="The user's zone: bare times are read and shown in it.")
    daily_at: str | None = Field(default=None, description="HH:MM: checks at this local time every day.")
    reminder: str | None = Field(default=None, description="A reminder: this text goes to the user at each time, "
                                                          "with no model call.")
    every_months: int | None = Field(default=None, description="Repeats on the same day of the month as `anchor_at`.")
    anchor_at: float | None = Field(default=None, description="The first time, for monthly repeats.")
    digest: DigestChoice | None = Field(default=None, description="The user's digest choice (None: the default, "
                                                                 "weekly for a watch of over a week).")
    digest_mark: DigestMark | None = Field(default=None, description="Where the goal stood at the last digest.")
    first_value: float | None = Field(default=None, description="A threshold watch's figure at its first reading.")
    change_offered: bool = Field(default=False, description="The user was offered a change when the figure came "
                                                             "near their limit (once per watch).")
