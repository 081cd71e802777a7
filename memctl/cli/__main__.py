"""``python -m memctl.cli``: the same entry point as the ``memctl`` console script."""

from memctl.cli.main import main

main()
