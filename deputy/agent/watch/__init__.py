"""Goals that wait and look again: monitors and their checks (`monitoring`, `watch_steps`), probes set
up from a goal (`probe_setup`), the card that shows a watch (`watch_card`) and the checks' budget."""
