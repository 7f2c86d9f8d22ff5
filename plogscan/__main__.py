"""Allow ``python -m plogscan``."""

from plogscan.cli import main

if __name__ == "__main__":
    main()
