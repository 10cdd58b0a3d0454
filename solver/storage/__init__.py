"""Storage: the SQLite store of solved deals and the game records."""
