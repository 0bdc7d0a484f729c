"""The operator's commands that are not processes: `deputy users`, `deputy audit verify`,
`deputy export-training-data`."""
