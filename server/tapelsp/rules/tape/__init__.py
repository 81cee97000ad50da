"""The GradientTape rules (TAPE001-TAPE018): why `tape.gradient` returns None or raises."""
