"""medjudge: expert review of LLM answers to medical questions."""

__version__ = "0.1.0"
