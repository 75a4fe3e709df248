# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-kernel GPU time of one extraction from an `ncu --csv --metrics gpu__time_duration.sum`
log. Usage: ncu_summary.py LOG [FRAME [FIRST_KERNEL]]. Extractions are split at FIRST_KERNEL,
the first launch of each frame: for SIFT (default) convert_kernel, convert_gray_kernel, or the
two-level blur that reads a GRAY8 frame's bytes (blur_two_levels_kernel<A, B, unsigned char>);
integral_rows_kernel for SURF. FRAME counts from 0 (default 1)."""
import collections
import csv
import sys

rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
frame = int(sys.argv[2]) if len(sys.argv) > 2 else 1
first_kernels = [sys.argv[3]] if len(sys.argv) > 3 else ['convert_kernel', 'convert_gray_kernel']
header = rows[0]
name_at, value_at, id_at = header.index('Kernel Name'), header.index('Metric Value'), header.index('ID')
kernels = {}
for r in rows[1:]:
    try:
        kernels[int(r[id_at])] = (r[name_at].split('(')[0].split('::')[-1][:48],
                                  float(r[value_at].replace(',', '')))
    except ValueError:
        pass
frames, current, previous_first = [], None, False
for i in sorted(kernels):
    name, ns = kernels[i]
    first = name in first_kernels or (len(sys.argv) <= 3 and name.endswith('unsigned char>'))
    # A frame uploaded in bands starts with one such kernel per band.
    if first and not previous_first:
        current = []
        frames.append(current)
    previous_first = first
    if current is not None:
        current.append((name, ns))
totals, counts = collections.defaultdict(float), collections.Counter()
for name, ns in frames[frame]:
    totals[name] += ns
    counts[name] += 1
print(f'frame {frame} of {len(frames)}: {sum(counts.values())} kernels, '
      f'{sum(totals.values()) / 1000:.1f} us of kernel time')
for name in sorted(totals, key=lambda n: -totals[n]):
    print(f'{name:48s} {counts[name]:4d} {totals[name] / 1000:9.1f} us')
