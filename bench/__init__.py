"""Deputy benchmarks and evaluations: each module runs with `python -m bench.<name>`."""
