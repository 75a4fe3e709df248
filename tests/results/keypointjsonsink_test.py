# SPDX-License-Identifier: LGPL-2.1-or-later
"""keypointjsonsink on real pipelines (CPU backend): every line validates against the JSON Schema
of docs/schema/ and carries the values of the metas that a probe read on the sink's pad; a real
object scene gives objects with a tracking id that holds while the object is found; stdout through
gst-launch-1.0; PTS none as null."""

import json
import os
import shutil
import subprocess
import sys
import unittest

import numpy as np

import results_test_support as support
from results_test_support import Gst

from gpusift import metas  # noqa: E402 (PYTHONPATH: tools/programs/python)

SIZE = (320, 240)
# The reference: a 160x120 crop of coffee.png around the cup.
REFERENCE_BOX = (150, 80, 160, 120)  # x, y, width, height
# Frames 10 and 11 show grass: the cup is gone, and found again (with a new id) from frame 12.
FRAMES = 20
GAP = (10, 11)


def window(image, i):
    """Frame i: a 320x240 window of the image, moving right 2 px and down 1 px a frame."""
    x, y = 40 + 2 * i, 30 + i
    return image[y : y + SIZE[1], x : x + SIZE[0]]


class Scene:
    def __init__(self, workdir):
        self.coffee = support.load_gray(support.data_path("coffee.png"))
        self.grass = support.load_gray(support.data_path("grass.png"))
        x, y, w, h = REFERENCE_BOX
        self.reference = os.path.join(workdir, "cup.png")
        support.write_png(self.coffee[y : y + h, x : x + w], self.reference)

    def frame(self, i):
        return window(self.grass if i in GAP else self.coffee, i)


class Probe:
    """The metas of every buffer reaching a pad, copied, in order."""

    def __init__(self, pad):
        self.frames = []
        pad.add_probe(Gst.PadProbeType.BUFFER, self._on_buffer)

    def _on_buffer(self, pad, info):
        buffer = info.get_buffer()
        features = metas.features(buffer)
        try:
            tracks = metas.tracks(buffer)
        except metas.MissingMetaError:
            tracks = None
        self.frames.append(
            {
                "pts": buffer.pts,
                "method": features.method,
                "keypoints": features.keypoints.copy(),
                "tracks": None if tracks is None else tracks.tracks.copy(),
                "motion": None if tracks is None else tracks.motion,
                "objects": metas.objects(buffer),
            }
        )
        return Gst.PadProbeReturn.OK


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert text.endswith("\n"), "the last line is not whole"
    return text.splitlines()


class JsonSinkPipelineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.validator = support.schema_validator()
        cls.workdir = support.workdir()
        cls.scene = Scene(cls.workdir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workdir, ignore_errors=True)

    def assert_valid(self, record):
        errors = sorted(self.validator.iter_errors(record), key=str)
        self.assertEqual(errors, [], "\n".join(e.message for e in errors))

    def test_every_line_validates_and_carries_the_metas(self):
        path = os.path.join(self.workdir, "scene.jsonl")
        pipeline = Gst.parse_launch(
            "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
            "framerate=30/1 ! gpusiftfilter backend=cpu ! "
            "keypointtracker backend=cpu post-messages=true ! "
            'keypointmatcher backend=cpu label=cup reference="%s" ! '
            'keypointjsonsink name=sink location="%s" stream-id=kitchen include-tracks=true '
            "include-keypoints=true" % (SIZE[0], SIZE[1], self.scene.reference, path)
        )
        probe = Probe(pipeline.get_by_name("sink").get_static_pad("sink"))
        src = pipeline.get_by_name("src")
        tracker = {}

        def on_element(message):
            s = message.get_structure()
            if s.get_name() == "keypointtracker":
                tracker[s.get_value("timestamp")] = {
                    "ended": s.get_value("ended-tracks"),
                    "new": s.get_value("new-tracks"),
                    "alive": s.get_value("tracks-alive"),
                }

        pipeline.set_state(Gst.State.PLAYING)
        for i in range(FRAMES):
            src.emit("push-buffer", support.gray_buffer(self.scene.frame(i), i * Gst.SECOND // 30))
        src.emit("end-of-stream")
        end = support.run_to_end(pipeline, on_element=on_element)
        pipeline.set_state(Gst.State.NULL)
        self.assertIsNotNone(end, "no EOS in time")
        self.assertEqual(end.type, Gst.MessageType.EOS, end.parse_error() if end else None)

        records = [json.loads(line) for line in read_lines(path)]
        self.assertEqual(len(records), FRAMES)
        self.assertEqual(len(probe.frames), FRAMES)
        previous_alive = None
        found_ids = []
        for i, (record, seen) in enumerate(zip(records, probe.frames)):
            with self.subTest(frame=i):
                self.assert_valid(record)
                self.assertEqual(record["schema_version"], 1)
                self.assertEqual(record["stream_id"], "kitchen")
                self.assertEqual(record["seq"], i)
                self.assertEqual(record["pts"], seen["pts"])
                self.assertEqual(record["pts"], i * Gst.SECOND // 30)
                self.assertEqual((record["width"], record["height"]), SIZE)
                self.check_features(record["features"], seen)
                self.check_motion(record["motion"], seen["motion"])
                self.check_tracks(record["tracks"], seen, tracker[seen["pts"]], previous_alive)
                previous_alive = seen["motion"].tracks_alive
                self.check_objects(record["objects"], seen["objects"])
                found_ids.append(record["objects"][0]["id"] if record["objects"] else None)

        # The cup is found on most coffee frames and never on grass; its id holds over frames in
        # a row and changes after a frame without it.
        for i in GAP:
            self.assertIsNone(found_ids[i])
        coffee = [i for i in range(FRAMES) if i not in GAP]
        found = [i for i in coffee if found_ids[i] is not None]
        self.assertGreaterEqual(len(found), len(coffee) - 2, found_ids)
        self.assertIsNotNone(found_ids[0])
        for i in range(1, FRAMES):
            if found_ids[i] is None:
                continue
            if found_ids[i - 1] is not None:
                self.assertEqual(found_ids[i], found_ids[i - 1], (i, found_ids))
            else:
                self.assertNotIn(found_ids[i], found_ids[:i], (i, found_ids))
        self.assertNotEqual(found_ids[0], found_ids[GAP[-1] + 2])

    def check_features(self, features, seen):
        keypoints = seen["keypoints"]
        self.assertEqual(features["method"], seen["method"])
        self.assertEqual(features["count"], len(keypoints))
        listed = features["keypoints"]
        self.assertEqual(len(listed), len(keypoints))
        for name in ("x", "y", "size", "angle", "response"):
            # Exactly the float32 values: widened to double, printed with 17 digits.
            np.testing.assert_array_equal(
                np.array([k[name] for k in listed], np.float64),
                keypoints[name].astype(np.float64),
                err_msg=name,
            )
        for name in ("octave", "class_id"):
            self.assertEqual([k[name] for k in listed], keypoints[name].tolist(), name)

    def check_motion(self, motion, seen):
        self.assertIsNotNone(motion)
        self.assertEqual(motion["model"], seen.model)
        self.assertEqual(motion["frame_number"], seen.frame_number)
        self.assertEqual(motion["valid"], seen.valid)
        self.assertEqual(motion["cumulative_valid"], seen.cumulative_valid)
        self.assertEqual(motion["matrix"], seen.matrix.reshape(-1).tolist())
        self.assertEqual(motion["cumulative"], seen.cumulative.reshape(-1).tolist())
        self.assertEqual(motion["matches"], seen.matches)
        self.assertEqual(motion["inliers"], seen.inliers)

    def check_tracks(self, tracks, seen, message, previous_alive):
        table = seen["tracks"]
        self.assertEqual(tracks["alive"], seen["motion"].tracks_alive)
        self.assertEqual(tracks["alive"], message["alive"])
        self.assertEqual(tracks["new"], int(np.count_nonzero(table["age"] == 0)))
        self.assertEqual(tracks["new"], message["new"])
        if seen["motion"].frame_number > 0:
            self.assertEqual(tracks["ended"], message["ended"])
        else:
            # The tracker started over: every track alive before ended.
            self.assertEqual(tracks["ended"], previous_alive or 0)
        items = tracks["items"]
        self.assertEqual([t["id"] for t in items], table["track_id"].tolist())
        self.assertEqual([t["age"] for t in items], table["age"].tolist())
        self.assertEqual([t["x"] for t in items], seen["keypoints"]["x"].astype(float).tolist())
        self.assertEqual([t["y"] for t in items], seen["keypoints"]["y"].astype(float).tolist())

    def check_objects(self, objects, seen):
        self.assertEqual(len(objects), len(seen))
        for record, meta in zip(objects, seen):
            self.assertEqual(record["label"], meta.label)
            self.assertEqual(record["corners"], meta.corners.tolist())
            self.assertEqual(record["homography"], meta.homography.reshape(-1).tolist())
            self.assertEqual(record["matches"], meta.matches)
            self.assertEqual(record["inliers"], meta.inliers)
            self.assertEqual(
                (record["reference_width"], record["reference_height"]), REFERENCE_BOX[2:]
            )

    def test_pts_none_is_null(self):
        path = os.path.join(self.workdir, "no-pts.jsonl")
        pipeline = Gst.parse_launch(
            "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
            "framerate=30/1 ! gpusiftfilter backend=cpu ! "
            'keypointjsonsink location="%s" stream-id=no-clock' % (SIZE[0], SIZE[1], path)
        )
        src = pipeline.get_by_name("src")
        pipeline.set_state(Gst.State.PLAYING)
        for i in range(3):
            src.emit("push-buffer", support.gray_buffer(self.scene.frame(i), None))
        src.emit("end-of-stream")
        end = support.run_to_end(pipeline)
        pipeline.set_state(Gst.State.NULL)
        self.assertEqual(end.type, Gst.MessageType.EOS)
        records = [json.loads(line) for line in read_lines(path)]
        self.assertEqual(len(records), 3)
        for record in records:
            self.assert_valid(record)
            self.assertIsNone(record["pts"])
            self.assertIsNone(record["motion"])
            self.assertIsNone(record["tracks"])
            self.assertGreater(record["features"]["count"], 0)

    def test_stdout_from_gst_launch(self):
        launch = shutil.which("gst-launch-1.0")
        self.assertIsNotNone(launch, "gst-launch-1.0 is missing (Debian: gstreamer1.0-tools)")
        frames = 12
        result = subprocess.run(
            [
                launch,
                "-q",
                "videotestsrc",
                f"num-buffers={frames}",
                "pattern=ball",
                "!",
                "video/x-raw,width=160,height=120,framerate=30/1",
                "!",
                "gpusiftfilter",
                "backend=cpu",
                "!",
                "keypointtracker",
                "backend=cpu",
                "!",
                "keypointjsonsink",
                "location=-",
                "stream-id=launch",
                "include-tracks=true",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), frames, result.stdout[:2000])
        for i, line in enumerate(lines):
            record = json.loads(line)
            self.assert_valid(record)
            self.assertEqual(record["seq"], i)
            self.assertEqual(record["stream_id"], "launch")
            self.assertEqual(record["pts"], i * Gst.SECOND // 30)
            self.assertEqual((record["width"], record["height"]), (160, 120))
            self.assertEqual(record["motion"]["frame_number"], i)
            self.assertEqual(len(record["tracks"]["items"]), record["features"]["count"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[1:])
