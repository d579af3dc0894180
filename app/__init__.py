"""bufsize service, CLI and web form: the edges where users type units."""
