"""The staging validator: what sleep checks before a proposal or a merge becomes trusted memory.

The public entry point lives in :mod:`memctl.validator.core` (``validate_proposal``); the merge gate in
:mod:`memctl.validator.merge_gate`.
"""
