"""One module per ``memctl`` command (or command group)."""
