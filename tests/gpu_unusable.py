"""A listed device on which nothing can be prepared (its memory held by
another process) fails the device halves of the table tests, never skips
them: they once returned CTest's "skipped" with thousands of failed checks.

usage: gpu_unusable.py GPU_HOG TEST_KERNELS TEST_SPGEMM MATRIX_DIR
Skipped (77) without a device, a failure then under SPB_REQUIRE_GPU=1.
"""
import os
import subprocess
import sys

hog_path, kernels, spgemm, matrices = sys.argv[1:5]
hog = subprocess.Popen([hog_path], stdout=subprocess.PIPE, text=True)
said = hog.stdout.readline().strip()
if not said.startswith("held"):
    hog.wait()
    print("SKIPPED: no CUDA device here (%s)" % said)
    sys.exit(1 if os.environ.get("SPB_REQUIRE_GPU") == "1" else 77)
failed = 0
try:
    for program, args in ((kernels, [matrices, "cuda", "fast"]), (spgemm, [matrices, "cuda"])):
        r = subprocess.run([program, *args], capture_output=True, text=True, timeout=600)
        name = os.path.basename(program)
        lines = (r.stdout + r.stderr).strip().splitlines()
        print("\n".join(l for l in lines if "kernel runs" in l))
        if r.returncode != 1:
            failed += 1
            print("FAILED: %s cuda with the device's memory held (%s) ended %d, not 1 (failed): %s"
                  % (name, said, r.returncode, lines[-3:]))
        else:
            print("%s cuda with the device's memory held (%s): failed, as it must: %s"
                  % (name, said, lines[-1] if lines else ""))
finally:
    hog.kill()
    hog.wait()
sys.exit(1 if failed else 0)
