# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/keypoints-appsink.py end to end on the CPU backend: its per-frame report, and that a
missing element or a stalled source ends it quickly with one line and a non-zero status.

    keypoints_appsink_example_test.py --example pipelines/keypoints-appsink.py --workdir DIR
"""

import argparse
import os
import re
import subprocess
import sys
import unittest

import pygobject_or_skip  # noqa: F401  (exits 77 without PyGObject or numpy)

# Far above what each run needs; a run that hangs fails here instead of at meson's timeout.
RUN_TIMEOUT = 60

FRAME_LINE = re.compile(
    r"frame (\d+) pts [0-9:.]+: (\d+) keypoints \(sift, 320x240, descriptors 128 x float32\)"
)
KEYPOINT_LINE = re.compile(r"  #(\d+) x=\S+ y=\S+ size=\S+ angle=\S+ response=(\S+)")

options = None  # set from the command line


def run_example(*args, env=None):
    return subprocess.run(
        [sys.executable, options.example, *args],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=env,
    )


class KeypointsAppsinkExampleTest(unittest.TestCase):
    def test_prints_each_frame_with_its_strongest_keypoints(self):
        result = run_example("--backend", "cpu", "--frames", "4", "--top", "3",
                             "--width", "320", "--height", "240")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")

        lines = result.stdout.splitlines()
        frames = [FRAME_LINE.fullmatch(line) for line in lines]
        frames = [match for match in frames if match]
        self.assertEqual([int(match.group(1)) for match in frames], [0, 1, 2, 3], result.stdout)
        counts = [int(match.group(2)) for match in frames]
        self.assertTrue(all(count >= 3 for count in counts), counts)

        responses = [float(m.group(2)) for m in map(KEYPOINT_LINE.fullmatch, lines) if m]
        self.assertEqual(len(responses), 4 * 3, result.stdout)
        for frame in range(4):
            top = responses[frame * 3:(frame + 1) * 3]
            self.assertEqual(top, sorted(top, reverse=True), f"frame {frame}: {top}")
        self.assertEqual(lines[-1], f"4 frames, {sum(counts)} keypoints")

        # The CPU backend is deterministic: a second run prints the same.
        self.assertEqual(run_example("--backend", "cpu", "--frames", "4", "--top", "3",
                                     "--width", "320", "--height", "240").stdout, result.stdout)

    def test_missing_element_fails_fast_with_one_line(self):
        env = dict(os.environ,
                   GST_PLUGIN_PATH=os.path.join(options.workdir, "no-plugins-here"),
                   GST_REGISTRY_1_0=os.path.join(options.workdir, "registry-no-plugins.bin"))

        result = run_example("--backend", "cpu", env=env)

        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertIn('no element "gpusiftfilter"', result.stderr)

    def test_stalled_source_ends_with_an_error(self):
        # A live source at one frame per 20 s: the first frame, then nothing for 2 s.
        result = run_example("--backend", "cpu", "--live", "--fps", "0.05", "--frames", "3",
                             "--stall-timeout", "2", "--width", "320", "--height", "240")

        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertRegex(result.stdout, r"^frame 0 ")
        self.assertEqual(result.stderr, "keypoints-appsink: no frame for 2 s after 1 frames\n")


def parse_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--example", required=True, help="path of keypoints-appsink.py")
    parser.add_argument("--workdir", required=True, help="folder for a throwaway registry")
    parsed, rest = parser.parse_known_args()
    return parsed, [sys.argv[0]] + rest


if __name__ == "__main__":
    options, unittest_argv = parse_options()
    unittest.main(argv=unittest_argv)
