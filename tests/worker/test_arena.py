"""hone_worker.arena: layouts, BUF/ARG JSON, host arenas shared with another process through a
real memfd passed over a real socket, and (with a GPU) CUDA VMM arenas imported by a child."""
import json
import math
import os
import socket
import subprocess
import sys
import textwrap
import unittest

from common import REPO

sys.path.insert(0, str(REPO / "server" / "worker"))

import torch  # noqa: E402

from hone_worker.arena import (ALIGNMENT, ArenaTable, BadBuffer, Buffer, CudaArena, HostArena, Layout,  # noqa: E402
                               scalar_arg, tensor_arg)

WORKER_DIR = str(REPO / "server" / "worker")


class LayoutAndJsonTest(unittest.TestCase):
    def test_layout_places_aligned_non_overlapping_buffers(self):
        layout = Layout(3)
        a = layout.place(torch.float32, [3, 5])
        b = layout.place(torch.float16, [7])
        c = layout.place(torch.int64, [4, 2], strides=[1, 4])
        self.assertEqual((a.arena, a.offset, a.strides), (3, 0, (5, 1)))
        self.assertEqual(b.offset, ALIGNMENT)
        self.assertEqual(c.offset, 2 * ALIGNMENT)
        self.assertEqual(c.span_bytes, 8 * 8)
        self.assertEqual(layout.size, 2 * ALIGNMENT + 64)
        self.assertEqual(Buffer.from_json(c.to_json()), c)

    def test_bad_bufs_are_rejected_with_the_reason(self):
        good = {"arena": 0, "offset": 0, "dtype": "float32", "shape": [2], "strides": [1]}
        for change, words in (({"dtype": "complex64"}, "dtype"), ({"offset": 2}, "multiple"),
                              ({"shape": [2, -1], "strides": [1, 1]}, "shape"), ({"strides": [1, 1]}, "strides"),
                              ({"arena": True}, "arena")):
            with self.assertRaises(BadBuffer) as caught:
                Buffer.from_json(dict(good, **change))
            self.assertIn(words, str(caught.exception))

    def test_scalar_args_round_trip_non_finite_values_as_strings(self):
        table = ArenaTable()
        self.assertEqual(scalar_arg(math.inf), {"kind": "float", "value": "inf"})
        self.assertTrue(math.isnan(table.value(scalar_arg(math.nan))))
        self.assertEqual(table.value(scalar_arg(-math.inf)), -math.inf)
        self.assertIs(table.value(scalar_arg(True)), True)
        self.assertEqual(table.value(scalar_arg(7)), 7)
        with self.assertRaises(BadBuffer):
            table.value({"kind": "int", "value": 1.5})
        with self.assertRaises(BadBuffer):
            table.value({"kind": "tensor", "buf": {"arena": 9, "offset": 0, "dtype": "float32", "shape": [1]}})


class HostArenaTest(unittest.TestCase):
    def test_views_share_memory_and_bounds_are_checked(self):
        layout = Layout(1)
        x = layout.place(torch.float32, [4, 4], strides=[1, 4])
        arena = HostArena.create(1, layout.size)
        self.assertEqual(arena.size % 4096, 0)
        table = ArenaTable()
        table.add(arena)
        view = table.tensor(x.to_json())
        view.copy_(torch.arange(16, dtype=torch.float32).view(4, 4))
        again = table.value(tensor_arg(x))
        self.assertEqual(again.stride(), (1, 4))
        self.assertTrue(torch.equal(again, torch.arange(16, dtype=torch.float32).view(4, 4)))
        self.assertEqual(view.data_ptr(), arena.address)
        past = Buffer(1, arena.size - 4, "float32", (2,), (1,))
        with self.assertRaises(BadBuffer):
            arena.view(past)
        with self.assertRaises(RuntimeError):
            arena.close()
        del view, again
        table.close()

    def test_another_process_sees_and_writes_the_arena(self):
        layout = Layout(5)
        buf = layout.place(torch.float64, [8])
        arena = HostArena.create(5, layout.size)
        mine = arena.view(buf)
        mine.copy_(torch.arange(8, dtype=torch.float64))
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        code = textwrap.dedent(f"""
            import json, socket, sys
            sys.path.insert(0, {WORKER_DIR!r})
            from hone_worker.arena import ArenaTable, HostArena
            sock = socket.socket(fileno={child.fileno()})
            message, fds, _, _ = socket.recv_fds(sock, 65536, 4)
            request = json.loads(message)
            table = ArenaTable()
            table.add(HostArena.attach(request["arena"], fds[0], request["bytes"]))
            t = table.tensor(request["buf"])
            total = float(t.sum())
            t.mul_(-1)
            sock.send(json.dumps({{"sum": total}}).encode())
        """)
        process = subprocess.Popen([sys.executable, "-c", code], pass_fds=[child.fileno()])
        child.close()
        request = {"arena": 5, "bytes": arena.size, "buf": buf.to_json()}
        socket.send_fds(parent, [json.dumps(request).encode()], [arena.fd])
        reply = parent.recv(65536)
        self.assertEqual(process.wait(60), 0)
        self.assertIn(b'"sum": 28.0', reply)
        self.assertTrue(torch.equal(mine, -torch.arange(8, dtype=torch.float64)))
        parent.close()
        del mine
        arena.close()

    def test_attach_refuses_more_bytes_than_the_memfd_holds(self):
        arena = HostArena.create(2, 100)
        with self.assertRaises(BadBuffer):
            HostArena.attach(2, os.dup(arena.fd), arena.size + 4096)
        arena.close()


@unittest.skipUnless(torch.cuda.is_available(), "skipped: no GPU (CUDA VMM arenas need one)")
class CudaArenaTest(unittest.TestCase):
    def test_a_child_imports_the_arena_and_both_see_each_others_writes(self):
        layout = Layout(7)
        buf = layout.place(torch.float32, [1 << 20])
        arena = CudaArena.create(7, layout.size, 0)
        self.assertEqual(arena.size % (2 << 20), 0)
        mine = arena.view(buf)
        mine.copy_(torch.arange(1 << 20, dtype=torch.float32, device="cuda"))
        torch.cuda.synchronize()
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        code = textwrap.dedent(f"""
            import json, socket, sys
            sys.path.insert(0, {WORKER_DIR!r})
            import torch
            from hone_worker.arena import ArenaTable, CudaArena
            sock = socket.socket(fileno={child.fileno()})
            message, fds, _, _ = socket.recv_fds(sock, 65536, 4)
            request = json.loads(message)
            arena = CudaArena.attach(request["arena"], fds[0], request["bytes"], 0)
            table = ArenaTable()
            table.add(arena)
            t = table.tensor(request["buf"])
            total = float(t.double().sum())
            t.mul_(2)
            torch.cuda.synchronize()
            del t
            table.close()
            sock.send(json.dumps({{"sum": total}}).encode())
        """)
        process = subprocess.Popen([sys.executable, "-c", code], pass_fds=[child.fileno()])
        child.close()
        request = {"arena": 7, "bytes": layout.size, "buf": buf.to_json()}
        socket.send_fds(parent, [json.dumps(request).encode()], [arena.fd])
        reply = parent.recv(65536)
        self.assertEqual(process.wait(120), 0)
        expected = float(torch.arange(1 << 20, dtype=torch.float64).sum())
        self.assertIn(f'"sum": {expected}'.encode(), reply)
        self.assertTrue(torch.equal(mine, 2 * torch.arange(1 << 20, dtype=torch.float32, device="cuda")))
        with self.assertRaises(RuntimeError):
            arena.close()
        del mine
        arena.close()


if __name__ == "__main__":
    unittest.main()
