#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads the keypoints of each frame in Python: videotestsrc ! gpusiftfilter ! appsink.

Prints, per frame, the number of keypoints and the strongest ones by response, taken from the
GstKeypointsMeta through its typelib and numpy (gpusift.metas, from the installed package or
tools/programs/python, found relative to this script).

    source pipelines/env.sh
    pipelines/keypoints-appsink.py [--frames N] [--backend auto|cuda|cpu] [--top K]
                                   [--width W] [--height H] [--fps F] [--live]
                                   [--stall-timeout SECONDS]

Environment (pipelines/env.sh sets all three for the build in ./build):
  GST_PLUGIN_PATH  folder of the gpusift plugin (BUILD/gst)
  GI_TYPELIB_PATH  folder of GstKeypoints-1.0.typelib (BUILD/gst/keypoints/introspection)
  LD_LIBRARY_PATH  folder of libgstkeypoints-1.0.so.0 (BUILD/gst/keypoints)
The last two are not needed when the meta library and its typelib are installed.

Exit status: 0 after the last frame; 1 on a pipeline error or when no frame arrives for
--stall-timeout seconds; 2 when something is missing (Python module, typelib, element) or an
option is bad. Every failure is one line on stderr.

Runs under Debian's /usr/bin/python3, which has python3-gi, python3-gst-1.0 and python3-numpy.
"""

import argparse
import fractions
import os
import sys
import threading
import time

PROGRAM = "keypoints-appsink"
SETUP_FAILURE = 2
RUN_FAILURE = 1
# Pipeline shutdown waits this long for the streaming threads before the process just exits.
SHUTDOWN_SECONDS = 5


def fail(status, message):
    print(f"{PROGRAM}: {message}", file=sys.stderr, flush=True)
    sys.exit(status)


sys.path.insert(
    0,
    os.path.join(
        os.path.dirname(os.path.realpath(__file__)), os.pardir, "tools", "programs", "python"
    ),
)
try:
    import numpy as np

    import gi

    from gpusift import metas

    gi.require_version("GstApp", "1.0")
    from gi.repository import GLib, Gst, GstApp  # noqa: F401 (GstApp: the appsink's methods)
except ValueError as error:  # a typelib that gi.require_version cannot find
    fail(SETUP_FAILURE, str(error))
except ImportError as error:
    fail(SETUP_FAILURE, f"{error} (source pipelines/env.sh, or see this script's docstring)")


def parse_args():
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description=__doc__.split("\n", 1)[0],
        epilog="Environment: GST_PLUGIN_PATH, GI_TYPELIB_PATH, LD_LIBRARY_PATH "
        "(source pipelines/env.sh).",
    )
    parser.add_argument("--frames", type=int, default=10, help="frames to process (default 10)")
    parser.add_argument("--backend", choices=["auto", "cuda", "cpu"], default="auto")
    parser.add_argument("--top", type=int, default=3, help="strongest keypoints to print")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--fps", type=float, default=30.0, help="frame rate (default 30)")
    parser.add_argument(
        "--live", action="store_true", help="produce frames in real time, as a camera does"
    )
    parser.add_argument(
        "--stall-timeout",
        type=float,
        default=10.0,
        help="give up when no frame arrives for this many seconds (default 10)",
    )
    args = parser.parse_args()
    if args.frames < 1 or args.top < 0 or args.width < 1 or args.height < 1:
        fail(SETUP_FAILURE, "--frames, --width and --height must be >= 1, --top >= 0")
    if args.stall_timeout <= 0 or args.fps <= 0:
        fail(SETUP_FAILURE, "--stall-timeout and --fps must be > 0")
    return args


def build_pipeline(args):
    rate = fractions.Fraction(args.fps).limit_denominator(1001)
    description = (
        f"videotestsrc num-buffers={args.frames} is-live={str(args.live).lower()} "
        "pattern=smpte horizontal-speed=4 ! "
        f"video/x-raw,format=NV12,width={args.width},height={args.height},"
        f"framerate={rate.numerator}/{rate.denominator} ! "
        f"gpusiftfilter backend={args.backend} ! "
        "appsink name=sink sync=false max-buffers=4"
    )
    try:
        return Gst.parse_launch_full(description, None, Gst.ParseFlags.FATAL_ERRORS)
    except GLib.Error as error:
        fail(
            SETUP_FAILURE,
            f"cannot build the pipeline: {error.message} "
            "(is GST_PLUGIN_PATH set to the build's gst folder? source pipelines/env.sh)",
        )


def print_frame(index, sample, top):
    buffer = sample.get_buffer()
    features = metas.features(buffer)
    keypoints = features.keypoints
    if features.descriptors is None:
        descriptors = "no descriptors"
    else:
        descriptors = f"descriptors {features.descriptors.shape[1]} x {features.descriptors.dtype}"
    print(
        f"frame {index} pts {Gst.TIME_ARGS(buffer.pts)}: {len(keypoints)} keypoints "
        f"({features.method}, {features.width}x{features.height}, {descriptors})"
    )
    # Stable, so that equal responses keep the element's order.
    strongest = keypoints[np.argsort(-keypoints["response"], kind="stable")[:top]]
    for rank, kp in enumerate(strongest, 1):
        print(
            f"  #{rank} x={kp['x']:.2f} y={kp['y']:.2f} size={kp['size']:.2f} "
            f"angle={kp['angle']:.2f} response={kp['response']:.6f}"
        )
    return len(keypoints)


def pop_error(bus):
    """The next error on the bus, or None; warnings on the way (such as backend=auto falling
    back to the CPU) are printed."""
    while True:
        message = bus.pop_filtered(Gst.MessageType.ERROR | Gst.MessageType.WARNING)
        if message is None:
            return None
        if message.type == Gst.MessageType.ERROR:
            error, _debug = message.parse_error()
            return f"{message.src.get_name()}: {error.message}"
        warning, _debug = message.parse_warning()
        print(f"{PROGRAM}: warning: {message.src.get_name()}: {warning.message}", file=sys.stderr)


def run(pipeline, args):
    """Returns (exit status, message for stderr or None)."""
    sink = pipeline.get_by_name("sink")
    bus = pipeline.get_bus()
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        return RUN_FAILURE, pop_error(bus) or "the pipeline refused to start"
    frames = 0
    keypoint_total = 0
    last_progress = time.monotonic()
    while True:
        error = pop_error(bus)
        if error:
            return RUN_FAILURE, error
        sample = sink.try_pull_sample(100 * Gst.MSECOND)
        if sample is not None:
            keypoint_total += print_frame(frames, sample, args.top)
            frames += 1
            last_progress = time.monotonic()
        elif sink.is_eos():
            break
        elif time.monotonic() - last_progress > args.stall_timeout:
            return RUN_FAILURE, f"no frame for {args.stall_timeout:g} s after {frames} frames"
    error = pop_error(bus)
    if error:
        return RUN_FAILURE, error
    print(f"{frames} frames, {keypoint_total} keypoints")
    return 0, None


def shut_down(pipeline, status):
    """Stops the pipeline, or exits anyway when a streaming thread does not let go."""
    stopper = threading.Thread(target=pipeline.set_state, args=(Gst.State.NULL,), daemon=True)
    stopper.start()
    stopper.join(SHUTDOWN_SECONDS)
    if stopper.is_alive():
        sys.stdout.flush()
        print(f"{PROGRAM}: the pipeline did not stop; exiting", file=sys.stderr, flush=True)
        os._exit(status or RUN_FAILURE)


def main():
    args = parse_args()
    pipeline = build_pipeline(args)
    status, message = run(pipeline, args)
    sys.stdout.flush()
    shut_down(pipeline, status)
    if message:
        fail(status, message)
    return status


if __name__ == "__main__":
    sys.exit(main())
