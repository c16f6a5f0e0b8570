"""``python -m medjudge``."""

from medjudge.cli import main

main()
