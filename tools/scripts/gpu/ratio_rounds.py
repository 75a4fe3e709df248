# SPDX-License-Identifier: LGPL-2.1-or-later
"""ratio-rounds.sh's table: per size, the reference's and our times and keypoint counts, the
ratio of each round (ours / reference, same round) and how many rounds are at or under the
target, unrounded. A time ratio compares equal work only where the counts agree: rows whose
counts differ by more than 5 % are marked.
Usage: ratio_rounds.py OUT ROUNDS [TARGET (0.55)]"""
import re
import statistics
import sys

out, rounds = sys.argv[1], int(sys.argv[2])
target = float(sys.argv[3]) if len(sys.argv) > 3 else 0.55
ours, reference = {}, {}
our_counts, reference_counts = {}, {}
for r in range(1, rounds + 1):
    for line in open(f'{out}/ours-{r}.md'):
        cells = [c.strip() for c in line.split('|')]
        if len(cells) > 4 and cells[2] == 'video':
            ours.setdefault(cells[1], {})[r] = float(cells[3])
            our_counts[cells[1]] = int(cells[6])
    for line in open(f'{out}/reference-{r}.txt'):
        match = re.match(r'size (\S+) median_ms (\S+)', line)
        if match:
            reference.setdefault(match.group(1), {})[r] = float(match.group(2))
            count = re.search(r'keypoints (\d+)', line)
            if count:
                reference_counts[match.group(1)] = int(count.group(1))

print(f'| size | reference ms | ours ms (pinned GRAY8, video) | reference kp | our kp | '
      f'ours / reference by round | median | rounds at <= {target}x |')
print('|---|---|---|---|---|---|---|---|')
for size, times in ours.items():
    paired = [r for r in sorted(times) if r in reference.get(size, {})]
    if not paired:
        print(f'| {size} | missing | | | | | | |')
        continue
    ratios = [times[r] / reference[size][r] for r in paired]
    theirs = [reference[size][r] for r in paired]
    mine = [times[r] for r in paired]
    theirs_count = reference_counts.get(size)
    mine_count = our_counts.get(size, 0)
    counts = f'{theirs_count if theirs_count is not None else "?"} | {mine_count}'
    if theirs_count and abs(mine_count / theirs_count - 1) > 0.05:
        counts += ' (counts differ)'
    print(f'| {size} | {min(theirs):.3f}-{max(theirs):.3f} | {min(mine):.3f}-{max(mine):.3f} | '
          f'{counts} | {" ".join(f"{x:.3f}" for x in ratios)} | '
          f'{statistics.median(ratios):.3f} | {sum(x <= target for x in ratios)} of {len(ratios)} |')
