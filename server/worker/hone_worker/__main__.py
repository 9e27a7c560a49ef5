"""Entry point of `python3 -m hone_worker`: serve JSON-lines requests on stdin until shutdown."""
import sys

from .server import serve

sys.exit(serve())
