"""One router module per model family; :mod:`app.api` gathers them under ``/v1``."""
