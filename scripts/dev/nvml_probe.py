# How often NVML's total-energy counter moves: polls it for 2 s under a busy GPU
# (a background CUDA load is not needed: the counter moves at idle too) and
# reports the intervals between changes.
import ctypes, time
nv = ctypes.CDLL("libnvidia-ml.so.1")
assert nv.nvmlInit_v2() == 0
dev = ctypes.c_void_p()
assert nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0
e = ctypes.c_ulonglong()
last, changes, start = None, [], time.perf_counter()
while time.perf_counter() - start < 2.0:
    nv.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(e))
    now = time.perf_counter()
    if last is not None and e.value != last[1]:
        changes.append((now - last[0], e.value - last[1]))
        last = (now, e.value)
    elif last is None:
        last = (now, e.value)
iv = sorted(c[0] for c in changes)
print("NVML energy counter: %d changes in 2 s; interval median %.2f ms, min %.2f, max %.2f; step median %d mJ"
      % (len(iv), 1e3 * iv[len(iv) // 2], 1e3 * iv[0], 1e3 * iv[-1], sorted(c[1] for c in changes)[len(changes) // 2]) if iv else "no change")
