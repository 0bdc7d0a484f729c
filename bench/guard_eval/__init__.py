"""The guard's evaluation suites: attacks by a hijacked model (`cases`, the generated `matrix`) and
ordinary goals (`benign`), run through the real runner, executor and Sentinel (`run`), laid out by `report`."""
