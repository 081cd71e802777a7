"""The ask cycle's public entry point: everything another cycle may use of it, and nothing else.

``memctl serve`` is ``memctl ask`` behind MCP and a Unix socket: it answers with :func:`ask` (warm), routes and
retrieves like ask for ``memory_search`` (:func:`fallback_route`, :func:`retrieve`) and stages proposals
like ask (:func:`stage_proposal`). It imports these names from here, never ask's modules themselves
(``tests/test_architecture.py`` holds it), so ask's inside can change without serve following.
"""

from __future__ import annotations

from memctl.ask.proposals import Proposal, ProposalError, stage_proposal
from memctl.ask.retrieval import Retrieval, Source, retrieve
from memctl.ask.routing import fallback_route
from memctl.ask.run import MAX_QUESTION_CHARS, AskError, AskOptions, AskResult, ask, load_index

__all__ = ["MAX_QUESTION_CHARS", "AskError", "AskOptions", "AskResult", "Proposal", "ProposalError", "Retrieval",
           "Source", "ask", "fallback_route", "load_index", "retrieve", "stage_proposal"]
