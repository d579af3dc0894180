"""The operators' web page at ``/``: a form, the recommendation, charts and a simulation check."""
