"""medjudge: expert review of LLM answers to medical questions."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """``medjudge.__version__``, read from the package metadata when first asked for (reading
    it costs ~30 ms, which every command would otherwise pay at start-up)."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("medjudge")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0.0.0+unknown"
    raise AttributeError(name)
