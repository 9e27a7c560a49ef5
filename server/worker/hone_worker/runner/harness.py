"""libhone_harness.so through ctypes (server/runner/harness.h): hone's own flush, hold, spin and
marker kernels and host registration, shared by the native and the python runner so that both
time candidates with the same code. Found through $HONE_HARNESS_LIBRARY, else in the share folder
beside this package (<share>/lib). Loaded on first use; called from the runner's main thread."""
import ctypes
import os
from typing import Optional, Sequence

LIBRARY_NAME = "libhone_harness.so"
_ERROR_BYTES = 1024


class HarnessError(RuntimeError):
    """A harness call failed; the message is the library's own (hone_harness_last_error)."""


class HarnessMissing(RuntimeError):
    """The library is not there (hone was built without it, or the share folder is incomplete)."""


def library_path() -> str:
    """$HONE_HARNESS_LIBRARY, else <share>/lib/libhone_harness.so."""
    return share_library("HONE_HARNESS_LIBRARY", LIBRARY_NAME)


def share_library(variable: str, name: str) -> str:
    """$variable, else <share>/lib/<name> (this package lives in <share>/worker/hone_worker/runner
    once installed)."""
    configured = os.environ.get(variable)
    if configured:
        return configured
    share = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    return os.path.join(share, "lib", name)


class FlushArgs(ctypes.Structure):
    """hone_harness_flush_args (harness.h): hone_flush's buffer, its size and its sink."""

    _fields_ = [("buffer", ctypes.c_void_p), ("bytes", ctypes.c_size_t), ("sink", ctypes.c_void_p)]


class Harness:
    """The loaded library. Streams are cudaStream_t values (0: the legacy default stream)."""

    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise HarnessMissing(f"{LIBRARY_NAME} not found at {path}: build hone's hone_harness target, or set "
                                 "HONE_HARNESS_LIBRARY to the library's path")
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        except OSError as exc:
            raise HarnessMissing(f"cannot load {path}: {exc}") from None
        vp, size, u64, i = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_ulonglong, ctypes.c_int
        signatures = {
            "hone_harness_version": ([], i), "hone_harness_has_cuda": ([], i),
            "hone_harness_flush": ([vp, vp, size, vp], i), "hone_harness_flush_l2": ([vp, vp, size, vp], i),
            "hone_harness_hold": ([vp, vp, u64, vp], i),
            "hone_harness_spin": ([vp, u64], i), "hone_harness_marker": ([vp, vp], i),
            "hone_harness_register": ([vp, size, ctypes.POINTER(vp)], i), "hone_harness_unregister": ([vp], i),
            "hone_harness_last_error": ([ctypes.c_char_p, i], i), "hone_harness_host_flush": ([vp, size], None),
            "hone_harness_host_evict": ([vp, size], i),
            "hone_harness_mix": ([vp, vp, ctypes.POINTER(vp), i, size, size, ctypes.c_uint], i),
            "hone_harness_host_mix": ([vp, ctypes.POINTER(vp), i, size, size, ctypes.c_uint], i),
            "hone_harness_mix_choice": ([ctypes.c_uint, u64], ctypes.c_uint),
            "hone_harness_flush_prologue": ([vp, vp], i),
        }
        for name, (argtypes, restype) in signatures.items():
            try:
                fn = getattr(lib, name)
            except AttributeError:
                raise HarnessMissing(f"{path} is not hone's harness library (no {name})") from None
            fn.argtypes, fn.restype = argtypes, restype
        self.path, self._lib = path, lib
        self.version = lib.hone_harness_version()
        self.has_cuda = bool(lib.hone_harness_has_cuda())
        self._error = ctypes.create_string_buffer(_ERROR_BYTES)

    def _check(self, code: int, what: str) -> None:
        if code != 0:
            self._lib.hone_harness_last_error(self._error, _ERROR_BYTES)
            raise HarnessError(f"{what} failed ({code}): {self._error.value.decode(errors='replace')}")

    def flush(self, stream: int, buffer: int, size: int, sink: int, evict_code: bool = True) -> None:
        """Enqueues hone_flush: reads `size` bytes at device address `buffer` (L2 left clean) and
        evicts the SMs' instruction caches; `evict_code` False: hone_flush_l2, the read alone (the
        flush of plain events, before a call-time pass's calls)."""
        if evict_code:
            self._check(self._lib.hone_harness_flush(stream or None, buffer, size, sink), "hone_harness_flush")
        else:
            self._check(self._lib.hone_harness_flush_l2(stream or None, buffer, size, sink), "hone_harness_flush_l2")

    def flush_prologue(self, buffer: int, size: int, sink: int) -> tuple:
        """(address of hone_harness_flush_prologue, its arguments): the kernel prologue that flushes
        `size` bytes at `buffer` before each kernel of a counted call (libhone_cupti arms it). The
        caller keeps the arguments alive while it is armed."""
        arguments = FlushArgs(buffer, size, sink)
        return ctypes.cast(self._lib.hone_harness_flush_prologue, ctypes.c_void_p).value, arguments

    def hold(self, stream: int, release_word: int, timeout_ns: int, timed_out_word: int) -> None:
        """Enqueues hone_hold: the stream waits until the 32-bit word at `release_word` (a device
        address of registered host memory) is non-zero, or `timeout_ns`; then it writes 1 to
        `timed_out_word` (device memory) if it timed out."""
        self._check(self._lib.hone_harness_hold(stream or None, release_word, timeout_ns, timed_out_word),
                    "hone_harness_hold")

    def spin(self, stream: int, ns: int) -> None:
        """Enqueues hone_spin: the stream is busy for `ns` nanoseconds."""
        self._check(self._lib.hone_harness_spin(stream or None, ns), "hone_harness_spin")

    def marker(self, stream: int, word: int) -> None:
        """Enqueues hone_marker, which writes the 32-bit word at device address `word`."""
        self._check(self._lib.hone_harness_marker(stream or None, word), "hone_harness_marker")

    def register(self, host: int, size: int) -> int:
        """Pins and maps host memory for the device; returns its device address."""
        device = ctypes.c_void_p()
        self._check(self._lib.hone_harness_register(host, size, ctypes.byref(device)), "hone_harness_register")
        return device.value or 0

    def unregister(self, host: int) -> None:
        self._check(self._lib.hone_harness_unregister(host), "hone_harness_unregister")

    def host_flush(self, buffer: int, size: int) -> None:
        """Reads `size` bytes of host memory at `buffer` (the CPU's cache flush)."""
        self._lib.hone_harness_host_flush(buffer, size)

    def host_evict(self, address: int, size: int) -> bool:
        """Writes back and evicts `size` bytes of host memory at `address` from the CPU's caches;
        False where this CPU cannot (nothing done). host_evict(0, 0) asks whether it can."""
        return self._lib.hone_harness_host_evict(address, size) == 0

    def mix(self, stream: int, dst: int, sets: Sequence[int], elem_bytes: int, count: int, seed: int) -> None:
        """Enqueues hone_mix, a timed call's fresh input in device memory: each of `count` elements
        of `elem_bytes` bytes at `dst` from the set (addresses `sets`) its hash of `seed` chooses."""
        addresses = (ctypes.c_void_p * len(sets))(*sets)
        self._check(self._lib.hone_harness_mix(stream or None, dst, addresses, len(sets), elem_bytes, count, seed),
                    "hone_harness_mix")

    def mix_choice(self, seed: int, element: int) -> int:
        """hone_mix's hash: element `element` of a mix with `seed` comes from set (this % sets)."""
        return int(self._lib.hone_harness_mix_choice(seed, element))

    def host_mix(self, dst: int, sets: Sequence[int], elem_bytes: int, count: int, seed: int) -> None:
        """The same mix in host memory, now."""
        addresses = (ctypes.c_void_p * len(sets))(*sets)
        if self._lib.hone_harness_host_mix(dst, addresses, len(sets), elem_bytes, count, seed) != 0:
            raise HarnessError(f"hone_harness_host_mix refused {len(sets)} sets of {elem_bytes}-byte elements")


_loaded: Optional[Harness] = None


def harness() -> Harness:
    """The library, loaded once per process; raises HarnessMissing."""
    global _loaded
    if _loaded is None:
        _loaded = Harness(library_path())
    return _loaded
