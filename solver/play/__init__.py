"""A game of Quintet against the computer, as a state machine (quintet-play and the tables)."""
