"""The ``memctl`` command line (Typer + Rich)."""
