"""The runner's end of the candidate protocol's socket (protocol/WORKER.md, "Transport"): one
AF_UNIX/SOCK_SEQPACKET datagram per UTF-8 JSON message, file descriptors as SCM_RIGHTS, NaN and
Inf as strings. It takes the socket off fds 0 and 1 before anything else runs, so nothing the
candidate (or torch) prints or reads reaches the protocol. Used from the main thread only."""
import errno
import json
import math
import os
import socket
import sys
from typing import List, Optional, Tuple

MAX_MESSAGE_BYTES = 8 << 20
MAX_FDS = 253  # SCM_MAX_FD: the most descriptors one message can carry


class Transport:
    """A connected SOCK_SEQPACKET socket on a private descriptor."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        # A datagram may not exceed the sender's buffer; the kernel caps this at net.core.wmem_max.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, MAX_MESSAGE_BYTES)

    @staticmethod
    def take_over_stdio() -> "Transport":
        """Moves the socket on fds 0/1 to a private (close-on-exec) descriptor, then points fd 0 at
        /dev/null and fd 1 at fd 2. Raises OSError when fd 0 is not a SOCK_SEQPACKET socket."""
        sys.stdout.flush()
        private = os.dup(0)  # os.dup makes the copy non-inheritable
        sock = socket.socket(fileno=private)
        if sock.type != socket.SOCK_SEQPACKET or sock.family != socket.AF_UNIX:
            sock.detach()
            os.close(private)
            raise OSError("fd 0 must be an AF_UNIX SOCK_SEQPACKET socket (the judge's end of a socketpair)")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        if sys.stdout is not None:  # what is printed reaches the judge's stderr tail at once
            sys.stdout.reconfigure(line_buffering=True)
        return Transport(sock)

    def receive(self) -> Optional[Tuple[bytes, List[int]]]:
        """The next datagram and the descriptors that came with it; None once the judge has closed
        its end. A datagram cut short (too long, or too many descriptors) comes back as b"" with
        the descriptors that did arrive, which the caller answers as a bad request."""
        data, fds, flags, _ = socket.recv_fds(self._sock, MAX_MESSAGE_BYTES, MAX_FDS)
        if not data and not fds:
            return None
        if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            return b"", fds
        return data, fds

    def send(self, message: dict) -> None:
        """Sends one message; raises OSError (EMSGSIZE when it is too long for one datagram)."""
        data = encode(message)
        if len(data) > MAX_MESSAGE_BYTES:
            raise OSError(errno.EMSGSIZE, f"message of {len(data)} bytes is over the {MAX_MESSAGE_BYTES}-byte limit")
        self._sock.send(data)

    def close(self) -> None:
        self._sock.close()


def encode(message: dict) -> bytes:
    return json.dumps(_finite(message), allow_nan=False, separators=(",", ":")).encode()


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
