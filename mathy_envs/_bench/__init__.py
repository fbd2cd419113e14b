"""The parts of `mathy-envs bench` below it."""
