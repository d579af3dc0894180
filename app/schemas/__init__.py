"""Request and response schemas, one module per model family."""
