"""``python -m medjudge``."""

from medjudge.cli import main

if __name__ == "__main__":  # judge workers are spawned and re-import this module
    main()
