"""``python -m medjudge``."""

from medjudge.cli import main

if __name__ == "__main__":  # `python -m medjudge`
    main()
