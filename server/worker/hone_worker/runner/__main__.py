"""Entry point of `python3 -m hone_worker.runner`."""
import sys

from .main import main

sys.exit(main(sys.argv[1:]))
