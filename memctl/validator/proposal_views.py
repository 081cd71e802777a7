"""One proposal's normalised readings, built once and shared by every check that reads them.

The validator (:mod:`memctl.validator.core`), the action classifier (:mod:`memctl.validator.action`), the
low-risk recogniser (:mod:`memctl.validator.low_risk`) and sleep's trust decision read the same content
in turn. Each used to fold, decode and lower-case it again; :func:`proposal_views` gives them one
:class:`ProposalViews` per content string instead (kept for the next caller: sleep validates a proposal and
decides on it right after), whose readings are computed on first use and then kept:

==================  =====================================================================================
attribute           reading (the function that builds it)
==================  =====================================================================================
``text``            the content as staged (never changed; it is what is promoted)
``deobfuscated``    NFKC, invisibles removed, case kept (:func:`memctl.validator.fold.deobfuscate`)
``skeleton``        look-alikes, overlays and letter spacing undone, case kept (:func:`fold.skeleton`)
``folded``          what every validator recogniser reads (:func:`fold.fold_for_matching`)
``decoded``         the validator's decoded payload views of ``skeleton``
                    (:func:`memctl.validator.encoded.decoded_view_list`)
``latin``           TR39 look-alikes folded (:func:`memctl.validator.confusables.fold_confusables`)
``native``          the language rules' reading of ``text`` (:func:`memctl.validator.fold.language_fold`)
``reading``         the language rules' reading of ``latin`` (what the subject and low-risk lists read)
``reading_views``   the action classifier's readings (:func:`memctl.validator.action_views.build_reading_views`),
                    produced lazily in order and kept, so a second reader does not decode again
==================  =====================================================================================

Identical readings collapse: the builders are memoised on their input string, so a view equal to one
already built (``latin`` of an ASCII note is its ``text``) costs a dictionary lookup. A
:class:`ProposalViews` is immutable to its readers (attributes cannot be set or deleted); its readings are
pure functions of ``text``, so sharing one changes no decision (``tests/validator/test_proposal_views.py``
compares the shared path with a path that rebuilds every reading on the bench corpora). Never raises on a
``str`` when built; a reading whose builder raises raises to the reader that asked for it, as calling the
builder directly would.
"""

from __future__ import annotations

import threading
from functools import cached_property, lru_cache
from typing import Callable, Iterator

from memctl.validator.confusables import fold_confusables
from memctl.validator.encoded import decoded_view_list
from memctl.validator.fold import deobfuscate, fold_for_matching, language_fold, skeleton

__all__ = ["ProposalViews", "proposal_views"]


class _KeptSequence:
    """A generator's items produced on demand and kept: every iteration replays what was produced and asks
    the generator for more only past it; an exception the generator raised is raised again at the same place
    for every later reader (as a fresh generator would). Safe to read from several threads (sleep's
    consolidation pool): one reader at a time advances the generator."""

    def __init__(self, source: Iterator[tuple[str, str]]) -> None:
        self._source = source
        self._items: list[tuple[str, str]] = []
        self._error: BaseException | None = None
        self._done = False
        self._lock = threading.Lock()

    def _advance(self, index: int) -> bool:
        """Make item ``index`` available; False when the generator ended before it."""
        with self._lock:
            while index >= len(self._items):
                if self._error is not None:
                    raise self._error
                if self._done:
                    return False
                try:
                    item = next(self._source)
                except StopIteration:
                    self._done = True
                    return False
                except Exception as exc:  # noqa: BLE001 - kept and raised to every reader, like the generator would
                    self._error = exc
                    self._done = True
                    raise
                self._items.append(item)
            return True

    def __iter__(self) -> Iterator[tuple[str, str]]:
        index = 0
        while index < len(self._items) or self._advance(index):
            yield self._items[index]
            index += 1


class ProposalViews:
    """The readings of one proposal's content (module doc), each built on first use and kept.

    Args:
        text: the content (any ``str``).

    Raises:
        AttributeError: on an attempt to set or delete an attribute (the views are shared, so immutable).
    """

    def __init__(self, text: str) -> None:
        object.__setattr__(self, "text", text)

    text: str

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ProposalViews is immutable (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ProposalViews is immutable (tried to delete {name!r})")

    @cached_property
    def deobfuscated(self) -> str:
        """NFKC, invisibles removed, case and letters kept."""
        return deobfuscate(self.text)

    @cached_property
    def skeleton(self) -> str:
        """Look-alikes, overlays and letter spacing undone, case kept."""
        return skeleton(self.text)

    @cached_property
    def folded(self) -> str:
        """:func:`memctl.validator.fold.fold_for_matching` of the text."""
        return fold_for_matching(self.text)

    @cached_property
    def decoded(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """``((encoding, view, payloads), …)`` of the skeleton (the validator's decoded payloads)."""
        return decoded_view_list(self.skeleton)

    @cached_property
    def latin(self) -> str:
        """TR39 look-alikes folded in mixed-script words."""
        return fold_confusables(self.text)

    @cached_property
    def native(self) -> str:
        """:func:`memctl.validator.fold.language_fold` of the text (Cyrillic and Greek kept)."""
        return language_fold(self.text)

    @cached_property
    def reading(self) -> str:
        """:func:`memctl.validator.fold.language_fold` of :attr:`latin`."""
        return self.native if self.latin == self.text else language_fold(self.latin)

    def reading_views(self, build: Callable[[ProposalViews], Iterator[tuple[str, str]]]) -> Iterator[tuple[str, str]]:
        """``(view name, folded text)`` of the action classifier, plain first, produced lazily by ``build``
        (:func:`memctl.validator.action_views.build_reading_views`, passed in: that module reads this one)
        on the first call and kept: later calls replay them."""
        kept = self.__dict__.get("_kept_readings")
        if kept is None:  # build() only makes a generator: nothing is decoded until the sequence is read
            kept = self.__dict__.setdefault("_kept_readings", _KeptSequence(build(self)))
        return iter(kept)


@lru_cache(maxsize=256)
def proposal_views(text: str) -> ProposalViews:
    """The shared :class:`ProposalViews` of ``text`` (the same object for the same string while it is kept;
    :func:`memctl.validator.core.clear_caches` forgets them)."""
    return ProposalViews(text)
