"""What graphglean knows of a served model's limits: the table of output limits, what a server reports, and the
completion cap a pass asks at."""
