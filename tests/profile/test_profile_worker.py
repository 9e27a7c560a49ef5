"""The worker side of profiling, over the real worker process and the real libhone_cupti.so:
clear errors without a GPU, the ctypes binding, a side without counters (or without SASS counters)
carrying only the reason, the ncu CSV reader, and the fallback's message when ncu is absent.
(Counting needs the H200: scripts/gpu/profile.sh.)"""
import json
import os
import subprocess
import sys
import unittest

WORKER_DIR = os.environ["HONE_WORKER_DIR"]
CUPTI_LIBRARY = os.environ.get("HONE_CUPTI_LIBRARY", "")
sys.path.insert(0, WORKER_DIR)

from hone_worker import profile, profile_ncu  # noqa: E402


class WorkerProcess:
    """`python3 -m hone_worker` over pipes, one request at a time."""

    def __init__(self):
        env = dict(os.environ, PYTHONPATH=WORKER_DIR)
        self.proc = subprocess.Popen([sys.executable, "-m", "hone_worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"id": self.next_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id and ("result" in reply or "error" in reply):
                return reply

    def close(self):
        self.call("shutdown", {})
        self.proc.wait(timeout=30)


class WorkerMethods(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.worker = WorkerProcess()

    @classmethod
    def tearDownClass(cls):
        cls.worker.close()

    def test_profile_needs_a_cuda_device(self):
        kernel = {"library": "/nonexistent.so", "form": "raw", "own_kernels": []}
        reply = self.worker.call("profile", {"task": "/x.py", "device": "cpu", "kernel": kernel,
                                             "cupti_library": CUPTI_LIBRARY})
        self.assertEqual(reply["error"]["code"], "unsupported")
        self.assertIn("needs a CUDA device", reply["error"]["message"])

    def test_profile_on_a_missing_gpu_says_so(self):
        reply = self.worker.call("profile", {"task": "/x.py", "device": "cuda:0", "kernel": {"library": "/x.so"}})
        self.assertIn(reply["error"]["code"], ("unsupported", "bad_request"))
        self.assertIn("cuda", reply["error"]["message"].lower())

    def test_measure_ceilings_needs_a_cuda_device(self):
        reply = self.worker.call("measure_ceilings", {"device": "cpu"})
        self.assertEqual(reply["error"]["code"], "unsupported")
        self.assertIn("CUDA devices", reply["error"]["message"])


@unittest.skipUnless(os.path.isfile(CUPTI_LIBRARY), "libhone_cupti.so was not built (no CUPTI)")
class CuptiBinding(unittest.TestCase):
    def test_version_and_host_query_through_ctypes(self):
        cupti = profile.Cupti(CUPTI_LIBRARY)
        version = cupti.version()
        self.assertTrue(version["ok"])
        self.assertIn("libcupti.so", version["cupti_library"])
        answer = json.loads(cupti.lib.hone_cupti_host_query(b'{"chip": "GH100", "metrics": "default"}'))
        self.assertLessEqual(answer["passes"], 2)

    def test_a_side_without_a_gpu_carries_reasons_and_no_numbers(self):
        cupti = profile.Cupti(CUPTI_LIBRARY)
        calls = []
        side = profile.profile_side(cupti, lambda: calls.append(1), lambda: None, "default", "fp32")
        self.assertIsNone(side["activity"])
        self.assertIsNone(side["metrics"])
        self.assertIn(side["counters_error"]["code"], ("no_device", "no_context"))
        self.assertIn(side["activity_error"]["code"], ("no_device", "no_context"))
        self.assertEqual(calls, [], "nothing runs when recording could not start")

    def test_sass_counters_without_a_gpu_carry_the_reason_and_run_nothing(self):
        cupti = profile.Cupti(CUPTI_LIBRARY)
        calls = []
        out = profile.sass_counters(cupti, lambda: calls.append(1), lambda: None)
        self.assertIsNone(out["sass"])
        self.assertIn(out["sass_error"]["code"], ("no_device", "no_context"))
        self.assertTrue(out["sass_error"]["message"])
        self.assertEqual(calls, [], "the patched call does not run when SASS counting could not start")
        # The library holds no recording behind the failed start: an ordinary one is refused the same way.
        again = profile.sass_counters(cupti, lambda: calls.append(1), lambda: None)
        self.assertEqual(again["sass_error"]["code"], out["sass_error"]["code"])

    def test_a_sass_recording_beside_counters_is_refused(self):
        cupti = profile.Cupti(CUPTI_LIBRARY)
        answer = json.loads(cupti.lib.hone_cupti_begin(b'{"sass": true, "metrics": "default"}'))
        self.assertFalse(answer["ok"])
        self.assertEqual(answer["error"]["code"], "bad_request")


class SassPassEnd(unittest.TestCase):
    def test_a_child_that_dies_in_the_sass_pass_keeps_the_counters_measured_before(self):
        import tempfile

        class DyingChild:
            def __init__(self, folder):
                self.folder = folder

            def run(self, arguments, prefix, timeout_s):
                # What _profile checkpointed before the SASS pass, then a crash inside patched code.
                kept = {"candidate": {"metrics": {"ranges": []}, "sass": None,
                                      "sass_error": {"code": profile.SASS_INTERRUPTED, "call": "",
                                                     "message": "the profiling child ended during the "
                                                                "per-instruction (SASS) pass"}}}
                with open(arguments[1], "w") as f:
                    json.dump(kept, f)
                return "signal 11"

        with tempfile.TemporaryDirectory() as folder:
            answer = profile._run_child(DyingChild(folder), {"task": "t.py"}, ncu=False)
        self.assertEqual(answer["candidate"]["metrics"], {"ranges": []})
        self.assertEqual(answer["candidate"]["sass_error"]["message"],
                         "the profiling child ended during the per-instruction (SASS) pass (signal 11); "
                         "the other counters were kept")

    def test_a_candidate_call_that_raises_under_patching_is_its_reason(self):
        class Recording:
            def record(self, request, call, synchronize):
                call()

        def failing():
            raise RuntimeError("CUDA error: an illegal memory access was encountered")

        out = profile.sass_counters(Recording(), failing, lambda: None)
        self.assertIsNone(out["sass"])
        self.assertEqual(out["sass_error"]["code"], "kernel_error")
        self.assertIn("illegal memory access", out["sass_error"]["message"])


# Hand-written in the layout of `ncu --csv --page raw --print-units base` (not a recording).
NCU_SAMPLE = '''==PROF== Connected to process 4242 (/usr/bin/python3)
==PROF== Profiling "vec_add" - 0: 0%....50%....100% - 9 passes
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum","gpu__time_duration.sum","smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
"","","","","","","","","","","","byte","byte","ns","%"
"0","4242","python3","h","vec_add(float const*, float const*, float*, int)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","543,313,000","271,656,000","190,112","100"
"1","4242","python3","h","relu_kernel(float*, int)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","4194304","4194304","3,100","n/a"
'''


class NcuFallback(unittest.TestCase):
    def test_csv_becomes_ranges_in_launch_order(self):
        ranges = profile_ncu.parse_ncu_csv(NCU_SAMPLE)
        self.assertEqual(len(ranges), 2)
        self.assertEqual(ranges[0]["name"], "vec_add(float const*, float const*, float*, int)")
        self.assertEqual(ranges[0]["values"]["dram__bytes_read.sum"], 543313000.0)
        self.assertEqual(ranges[0]["values"]["gpu__time_duration.sum"], 190112.0)
        self.assertNotIn("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", ranges[1]["values"])
        self.assertEqual(profile_ncu.parse_ncu_csv("==ERROR== ERR_NVGPUCTRPERM - no permission\n"), [])

    def test_without_ncu_the_cupti_reason_stays_and_says_so(self):
        if profile.ncu_path():
            self.skipTest("ncu is installed here")
        result = {"candidate": {"counters_error": {"code": "insufficient_privileges", "message": "no permission"},
                                "metrics": None}}
        profile_ncu.ncu_counters(result, lambda prefix: self.fail("ncu is not there to run"), "/tmp")
        side = result["candidate"]
        self.assertIsNone(side["metrics"])
        self.assertIn("no permission; the ncu fallback is not available", side["counters_error"]["message"])


if __name__ == "__main__":
    unittest.main()
