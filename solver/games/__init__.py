"""Game algorithms over a small game interface: the double oracle, the restricted Nash response."""
