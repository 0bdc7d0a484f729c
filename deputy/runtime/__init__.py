"""What every process shares at run time: health and metrics endpoints (`health`), the egress guards
built from settings (`egress_guards`) and the catalog of operations this Deputy offers (`operations`)."""
