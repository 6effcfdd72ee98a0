"""findsession without a terminal: the resident search service and the units that start it."""
