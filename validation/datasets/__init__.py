"""What the papers measured, as CSV with provenance."""
