"""Commands and links a developer keeps in notes that make the agent do nothing beyond the project itself.

The action classifier (:mod:`memctl.validator.action`) marks every command and URL action-bearing, so a note
such as "`make lint` runs ruff and mypy" or "the pathlib reference is at https://docs.python.org/…" waits
for a person. :func:`tooling_only` and :func:`reference_links_only` recognise the two narrow shapes sleep
may treat as descriptive (:func:`memctl.sleep.trust.decide`), and only when nothing else in the text holds it:

* *project tooling* — every code span (and every command the classifier found) runs the project's own
  build, test, lint, format or docs tool (:data:`_TOOLS`: ``pytest``, ``make <target>``, ``npm run/test``,
  ``cargo test``, ``go test``, ``ruff``, ``mypy``, ``mkdocs build`` …) with arguments that are words, paths
  and flags only: no URL or host, no pipe, redirection, ``;``, ``&&``, substitution or quote-escape, no
  ``sudo``, no flag that changes where code comes from or what is verified (``--index-url``,
  ``--trusted-host``, ``--no-verify``, ``--insecure``, ``--force``), and no ``make``/``npm run`` target that
  ships or installs (deploy, release, publish, upload, push, install, prod …). Those tools run code that
  is already in the repository; the memory adds no source of code;
* *reference links* — every URL is ``https`` on a vendor documentation host (:data:`_DOC_HOSTS`: a host
  whose content its vendor writes, not its users; written with or without its scheme) or a page of this
  machine (``localhost``, ``127.0.0.1``: the project's own OpenAPI docs), with no query or fragment template
  and no path ending in a script, archive or binary: the agent would read it, not run or send anything to it.

Sources: the build/test tools of the Python, JavaScript, Rust and Go ecosystems' own documentation; the
documentation hosts of those ecosystems and the major clouds. Deterministic; never raises on a ``str``.
"""

from __future__ import annotations

import re

__all__ = ["reference_links_only", "tooling_only", "without_links"]

_TOOLS = re.compile(
    r"(?:python3? -m )?(?:pytest|tox|nox|ruff(?: check| format)?|mypy|pyright|black|isort|flake8|pylint|coverage (?:run|report|html)"
    r"|make|npm (?:run|test|ci)|pnpm (?:run|test|lint|build)|yarn (?:run|test|lint|build)|cargo (?:build|test|check|fmt|clippy|doc|bench)"
    r"|go (?:test|build|vet|fmt)|gofmt|tsc|eslint|prettier|jest|vitest|mkdocs (?:build|serve)|sphinx-build"
    r"|uv (?:run (?:pytest|ruff|mypy|tox)|sync|lock)|poetry (?:run pytest|install|lock)|pre-commit run|gradle (?:test|build|check)"
    r"|mvn (?:test|verify|package|compile))(?![\w-])", re.IGNORECASE)
_ARG = re.compile(r"[\w./:=,@+%-]+|'[\w ./:=,-]*'|\"[\w ./:=,-]*\"")
_BAD_ARG = re.compile(r"https?:|//|\b(?:sudo|curl|wget|bash|sh)\b|--(?:extra-)?index-url|--trusted-host|--no-verify|--insecure"
                      r"|--force|--registry|--pre\b|-i\b|(?:^|\s)(?:deploy|release|publish|upload|push|install|prod\w*|ship"
                      r"|rollout|apply|destroy|clean-all|nuke|postinstall|preinstall)(?:\s|$|[:-])", re.IGNORECASE)
_SPAN = re.compile(r"`([^`\n]+)`")


def _tooling(command: str) -> bool:
    command = command.strip()
    head = _TOOLS.match(command)
    if not head or _BAD_ARG.search(command):
        return False
    rest = command[head.end():].strip()
    return all(_ARG.fullmatch(part) for part in rest.split()) if rest else True


def tooling_only(text: str) -> bool:
    """True when ``text`` has at least one code span and every code span is a project-tooling command (module
    doc), and no command stands outside a span (the text without its spans has no pipe, ``sudo`` or URL)."""
    if not isinstance(text, str):
        return False
    spans = _SPAN.findall(text)
    outside = _SPAN.sub(" ", text)
    return bool(spans) and all(_tooling(span) for span in spans) and not re.search(r"\||\bsudo\b|https?:|\$\(|&&|;\s*\w+ -", outside)


_DOC_HOSTS = frozenset(
    "docs.python.org peps.python.org packaging.python.org typing.readthedocs.io docs.pytest.org developer.mozilla.org "
    "nodejs.org docs.npmjs.com www.typescriptlang.org doc.rust-lang.org docs.rs go.dev pkg.go.dev docs.docker.com "
    "kubernetes.io docs.github.com git-scm.com docs.gitlab.com learn.microsoft.com docs.aws.amazon.com "
    "cloud.google.com docs.djangoproject.com flask.palletsprojects.com fastapi.tiangolo.com docs.pydantic.dev "
    "numpy.org pandas.pydata.org react.dev vuejs.org docs.astral.sh www.postgresql.org dev.mysql.com "
    "www.rfc-editor.org datatracker.ietf.org semver.org keepachangelog.com www.conventionalcommits.org "
    "docs.sqlalchemy.org docs.celeryq.dev docs.scipy.org matplotlib.org scikit-learn.org docs.rust-lang.org".split())
_LOCAL = frozenset(("localhost", "127.0.0.1", "[::1]"))
"""Hosts on this machine: a page the project serves locally (its OpenAPI docs) is read, not fetched from outside."""
_BARE = re.compile(r"(?<![\w@/.:-])((?:[a-z0-9-]+\.)+(?:org|com|io|dev|rs|net|sh|ai))(/[^\s?#)\]>]*)?(?![\w@-])", re.IGNORECASE)
_URL = re.compile(r"(https?)://([^/\s?#)\]>]+)([^\s?#)\]>]*)([?#][^\s)\]>]*)?", re.IGNORECASE)
_FETCHABLE = re.compile(r"\.(?:sh|bash|ps1|py|exe|msi|bat|cmd|whl|tar|gz|tgz|zip|jar|deb|rpm|dmg|pkg|bin|js)$", re.IGNORECASE)


def reference_links_only(text: str) -> bool:
    """True when ``text`` carries at least one URL and every URL is a documentation link (module doc): ``https``,
    a host of :data:`_DOC_HOSTS`, a path that names no script, archive or binary, no query (a ``#section``
    anchor is allowed) and no markdown image."""
    if not isinstance(text, str) or "![" in text:
        return False
    urls = _URL.findall(text)
    # a documentation host written without its scheme ("docs.python.org/3/howto/…") is the same link
    bare = [("https", host, path.rstrip("."), "") for host, path in _BARE.findall(_URL.sub(" ", text))]
    return bool(urls or bare) and all(
        (scheme.lower() == "https" and host.lower() in _DOC_HOSTS
         or host.lower().split(":")[0] in _LOCAL and not re.search(r":\d+:|@", host))
        and not _FETCHABLE.search(path)
        and (not tail or (tail.startswith("#") and re.fullmatch(r"#[\w.-]*", tail)))
        for scheme, host, path, tail in [*urls, *bare])


def without_links(text: str) -> str:
    """``text`` with every URL and scheme-less host link (the ones :func:`reference_links_only` reads) blanked."""
    return _BARE.sub(" ", _URL.sub(" ", text)) if isinstance(text, str) else ""
