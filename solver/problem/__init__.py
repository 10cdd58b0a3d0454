"""Problem data: a deal's packets and rank classes, opponent models, value tables."""
