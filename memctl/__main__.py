"""``python -m memctl``: the same entry point as the ``memctl`` console script (an attacker-helper and users
reached for it; only ``python -m memctl.cli`` existed)."""

from memctl.cli.main import main

main()
