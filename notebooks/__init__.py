"""SymPy derivations of the models, one notebook per model family (jupytext percent format)."""
