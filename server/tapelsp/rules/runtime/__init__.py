"""The runtime rules (RT001-RT006): findings only the probe makes, by running the program."""
