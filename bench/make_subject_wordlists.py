"""Generate the word lists the subject rules read (memctl/validator/data/); run by hand, never at run time.

Sources (named in each file's first line):

* ``popular_packages.txt`` — the most-downloaded names of two registries: the first 2,500 projects of
  hugovk/top-pypi-packages ``top-pypi-packages-30-days.min.json`` (PyPI download counts from ClickHouse,
  snapshot ``last_update`` 2026-04-01) and the first 2,500 names of the npm package ``npm-high-impact`` 1.13.0
  (``lib/top.js``: npm's most-depended-on and most-downloaded packages), folded to lower case; scoped npm
  names are kept as their last part.
* ``common_words.txt.gz`` (gzip) — ordinary words, so that a word one edit from a package name ("request" next to
  ``requests``) is not read as a typosquat: the 100,000 most frequent English words (they include the common technology names: sqlite, redis, kubernetes) and the 10,000 most frequent
  of de, fr, es, it, pt, nl, pl and tr from ``wordfreq`` 3.1.1 (PyPI, Apache-2.0 code, CC-BY-SA data),
  Latin letters only, accents removed.

    python -m venv /tmp/g && /tmp/g/bin/pip install wordfreq==3.1.1
    npm pack npm-high-impact@1.13.0 && tar xzf npm-high-impact-1.13.0.tgz
    /tmp/g/bin/python bench/make_subject_wordlists.py --pypi top-pypi-packages-30-days.min.json --npm package/lib/top.js
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "memctl" / "validator" / "data"


def _fold(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", word.casefold()) if unicodedata.category(ch) != "Mn")


def _write(path: Path, header: str, words: list[str]) -> None:
    body = (f"# {header}\n" + "".join(w + "\n" for w in words)).encode("utf-8")
    if path.suffix == ".gz":
        body = gzip.compress(body, mtime=0)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".words-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(body)
    os.replace(tmp, path)
    print(f"wrote {len(words)} names to {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pypi", type=Path, required=True, help="top-pypi-packages-30-days.min.json")
    parser.add_argument("--npm", type=Path, required=True, help="npm-high-impact's lib/top.js")
    args = parser.parse_args()
    for path in (args.pypi, args.npm):
        if not path.is_file():
            print(f"error: {path} is not a file", file=sys.stderr)
            return 2
    import wordfreq  # only the generator needs it

    pypi = [row["project"].lower() for row in json.loads(args.pypi.read_text())["rows"][:2500]]
    npm = [name.rsplit("/", 1)[-1].lower() for name in re.findall(r"'([^']+)'", args.npm.read_text())[:2500]]
    names = sorted(set(pypi) | set(npm))
    _write(DATA / "popular_packages.txt", "top 2,500 of hugovk/top-pypi-packages 30-days (2026-04-01) "
           "+ top 2,500 of npm-high-impact 1.13.0 lib/top.js", names)
    words: set[str] = set()
    for lang, count in (("en", 100000), ("de", 10000), ("fr", 10000), ("es", 10000), ("it", 10000), ("pt", 10000),
                        ("nl", 10000), ("pl", 10000), ("tr", 10000)):
        for word in wordfreq.top_n_list(lang, count):
            folded = _fold(word).replace("ı", "i").replace("ł", "l")
            if re.fullmatch(r"[a-z]+(?:'[a-z]+)?", folded):
                words.add(folded)
    _write(DATA / "common_words.txt.gz", "wordfreq 3.1.1: top 100,000 en, top 10,000 de fr es it pt nl pl tr, folded",
           sorted(words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
