"""Times as people say them, read by code and never by the model: "Friday at 9", "in two hours",
"by the end of the month", in the user's own zone."""
