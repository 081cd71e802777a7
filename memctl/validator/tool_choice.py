"""A choice between a project's own package managers: "we use pnpm instead of npm" adds no source of code.

The subject rules (:mod:`memctl.validator.subjects`) read "npm", "pip" or "cargo" as the supply chain, and a
choice word ("instead", "en lugar de") as a steer, so a plain tool preference in any language waits for a
person. :func:`package_manager_choice` recognises the narrow shape sleep may judge like any fact
(:func:`memctl.sleep.trust.decide`): every package word of the text is the name of a package manager or
build tool of a major ecosystem (:data:`_MANAGERS`), and the text names no place code could come from —
no URL, host, registry, index, mirror, proxy, fork, tarball, scope (``@acme/…``), version pin, flag or
other package. Which of two tools a team uses changes how the agent installs, never where code comes from.

Source: the ecosystems' own package managers (Python, JavaScript, Rust, Java, .NET, Ruby, PHP, Go).
Deterministic; never raises on a ``str``. What it does not judge: a third-party tool presented as a
package manager ("use fastnpm instead of npm" names an unknown tool and is not recognised).
"""

from __future__ import annotations

import re

__all__ = ["package_manager_choice"]

_MANAGERS = frozenset(
    "npm pnpm yarn bun deno pip pip3 pipx uv poetry pipenv conda mamba pdm hatch rye cargo maven mvn gradle nuget "
    "dotnet bundler gem composer go".split())
_TOKEN = re.compile(r"(?<![\w@/.-])[a-z][a-z0-9]*(?![\w@/-])", re.IGNORECASE)
_PLACE = re.compile(
    r"https?:|www\.|\b[\w-]+\.(?:com|net|org|io|dev|sh|co|app|cloud|xyz|ru|cn)\b|@[\w-]+/|--|registr|index|mirror"
    r"|miroir|espejo|espelho|spiegel|lustr|зеркал|proxy|fork|tarball|\bv?\d+\.\d+|[|;&$`<>]|\bfrom\b|\bdesde\b"
    r"|\bvon\b|\bdepuis\b", re.IGNORECASE)
_PACKAGE_WORDS = re.compile(r"package|librar|dependenc|crate|plugin|extension|paket|paquet|pacote|pacchett|pakiet"
                            r"|пакет|sdk", re.IGNORECASE)


def package_manager_choice(text: str) -> bool:
    """True when ``text`` names two or more package managers of :data:`_MANAGERS`, names no other package
    word and no place code comes from (module doc). Never raises; False for a non-``str``."""
    if not isinstance(text, str) or _PLACE.search(text) or _PACKAGE_WORDS.search(text):
        return False
    named = {t.lower() for t in _TOKEN.findall(text)} & _MANAGERS
    return len(named) >= 2
