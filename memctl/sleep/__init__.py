"""The sleep cycle: validate and promote proposals → cluster → consolidate → rebuild changed topics."""
