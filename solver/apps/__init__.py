"""The programs: quintet-solve, quintet-play, quintet-tournament, quintet-batch, quintet-serve."""
