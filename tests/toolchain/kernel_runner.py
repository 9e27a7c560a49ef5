"""Loads kernels that hone built and runs them, for the toolchain tests (tests/toolchain/forms_test.cpp).

  kernel_runner.py raw LIB cpu|cuda             raw form through ctypes: relu of 1000 floats
  kernel_runner.py torch cpu|cuda LIB NS FN ... torch form through torch.ops.load_library; FN is
                                                relu or neg: each op must compute its own function
Prints one JSON line; exits 1 with a message when a result is wrong.
"""
import ctypes
import json
import math
import sys

MAX_DIMS = 8


class ArgDesc(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("kind", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("sizes", ctypes.c_int64 * MAX_DIMS),
        ("strides", ctypes.c_int64 * MAX_DIMS),
    ]


def tensor_arg(ptr, n, dtype=0):
    a = ArgDesc()
    a.data = ptr
    a.kind = 0
    a.dtype = dtype
    a.ndim = 1
    a.sizes[0] = n
    a.strides[0] = 1
    return a


def fail(msg):
    print(json.dumps({"ok": False, "error": msg}))
    sys.exit(1)


def run_raw(lib_path, device):
    lib = ctypes.CDLL(lib_path)
    lib.hone_raw_signature.restype = ctypes.c_char_p
    lib.hone_raw_forward.restype = ctypes.c_int32
    lib.hone_raw_forward.argtypes = [ctypes.POINTER(ArgDesc), ctypes.c_int32, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32]
    signature = lib.hone_raw_signature().decode()
    n = 1000
    values = [math.sin(i * 0.37) * 3 for i in range(n)]
    err = ctypes.create_string_buffer(1024)
    if device == "cpu":
        x = (ctypes.c_float * n)(*values)
        y = (ctypes.c_float * n)(*([float("nan")] * n))
        args = (ArgDesc * 2)(tensor_arg(ctypes.addressof(x), n), tensor_arg(ctypes.addressof(y), n))
        rc = lib.hone_raw_forward(args, 2, None, err, 1024)
        got = list(y)
    else:
        import torch
        xt = torch.tensor(values, dtype=torch.float32, device="cuda")
        yt = torch.full_like(xt, float("nan"))
        args = (ArgDesc * 2)(tensor_arg(xt.data_ptr(), n), tensor_arg(yt.data_ptr(), n))
        rc = lib.hone_raw_forward(args, 2, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), err, 1024)
        torch.cuda.synchronize()
        got = yt.cpu().tolist()
    if rc != 0:
        fail("hone_raw_forward returned %d: %s" % (rc, err.value.decode()))
    for i, (a, b) in enumerate(zip(values, got)):
        if not abs(max(a, 0.0) - b) <= 1e-6:
            fail("element %d: expected %r, got %r" % (i, max(a, 0.0), b))
    # A contract violation (int32 where float32 is expected) is refused with a message, not run.
    bad = (ArgDesc * 2)(tensor_arg(None, n, dtype=4), tensor_arg(None, n))
    rc_bad = lib.hone_raw_forward(bad, 2, None, err, 1024)
    print(json.dumps({"ok": True, "signature": signature, "contract_rc": rc_bad, "contract_error": err.value.decode()}))


def run_torch(device, specs):
    import torch
    results = []
    x = torch.linspace(-3, 3, 1001, device=device)
    for lib_path, ns, fn in specs:
        torch.ops.load_library(lib_path)
        op = getattr(getattr(torch.ops, ns), "forward")
        y = op(x)
        expected = torch.relu(x) if fn == "relu" else -x
        if y.device != x.device or y.shape != x.shape or not torch.equal(y, expected):
            fail("%s (%s): wrong result for %s" % (ns, lib_path, fn))
        results.append({"namespace": ns, "schema": str(op.default._schema)})
    print(json.dumps({"ok": True, "ops": results, "torch": torch.__version__}))


def main():
    if sys.argv[1] == "raw":
        run_raw(sys.argv[2], sys.argv[3])
    else:
        rest = sys.argv[3:]
        run_torch(sys.argv[2], [tuple(rest[i:i + 3]) for i in range(0, len(rest), 3)])


if __name__ == "__main__":
    main()
