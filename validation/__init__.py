"""Validation: the packet simulator, the papers' datasets and the harness comparing them."""
