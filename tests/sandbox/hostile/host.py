# tests/sandbox/hostile/host.py: imitates the eval worker: loads a candidate's shared library with
# ctypes and calls its entry point hostile_main(argc, argv) with the remaining arguments.
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
args = [a.encode() for a in sys.argv[1:]]
argv = (ctypes.c_char_p * len(args))(*args)
print("HOST-LOADED", flush=True)
rc = lib.hostile_main(len(args), argv)
sys.stdout.flush()
sys.exit(rc)
