"""The agent: runs a goal's steps with the model, holds no credentials and cannot act.

The runner (`runner`, `model_turn`, `steps`) and the goal records (`goals`, `goal_lifecycle`) sit here;
`model/` talks to the model, `time/` reads the times people say, `watch/` runs the checks of goals
that wait (monitors and probes). Every action goes to the executor as a request.
"""
