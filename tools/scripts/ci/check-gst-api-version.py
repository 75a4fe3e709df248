#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fails when the built plugin or meta library imports GStreamer API newer than 1.20 unguarded.

GStreamer 1.20 is the oldest stack the project supports (JetPack 6). The GObject-introspection
data installed with GStreamer (/usr/share/gir-1.0/Gst*.gir) records the version each function
appeared in. This script lists the undefined dynamic symbols of the given libraries
(nm -D --undefined-only), looks each one up in the .gir files, and fails on any that is newer
than 1.20 unless it is in gst-api-allowlist.txt beside this script. An allow-listed symbol must
really be guarded: every use of it under gst/ must sit inside an #if/#elif/#else branch whose
condition names GST_CHECK_VERSION (the 1.20 path is the other branch). Macros, inline functions,
constants and types leave no import behind, so every identifier the .gir files date after 1.20
is also looked for in the sources under gst/, and must sit in such a branch too.

The GstCuda namespace (gstreamer-cuda) is public only from 1.22 on, whatever its .gir says per
symbol, so it counts as 1.22 throughout: it is accepted only with --gst-cuda (a build configured
with gst-cuda, which meson only allows against gstreamer-cuda >= 1.22) and fails otherwise. The
1.20 configuration is the one built with -Dgst-cuda=disabled.

Usage: check-gst-api-version.py BUILDDIR (its plugin and meta library; gst-cuda as configured)
       check-gst-api-version.py [--gst-cuda] --libraries LIBRARY...
Standard library only.
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

BASELINE = (1, 20)
CORE = "http://www.gtk.org/introspection/core/1.0"
C_NS = "http://www.gtk.org/introspection/c/1.0"
GLIB_NS = "http://www.gtk.org/introspection/glib/1.0"
# The namespaces of the GStreamer libraries the plugin and the meta library may link.
NAMESPACES = ("Gst", "GstBase", "GstVideo", "GstApp", "GstAllocators", "GstCuda", "GstGL")
CUDA_NAMESPACE = "GstCuda"
CUDA_VERSION = (1, 22)
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def parse_version(text):
    if not text:
        return None
    parts = text.split(".")
    try:
        return (int(parts[0]), int(parts[1]) if len(parts) > 1 else 0)
    except ValueError:
        return None


def newest(*versions):
    known = [v for v in versions if v is not None]
    return max(known) if known else None


def load_gir(path, table):
    """Adds c:identifier -> (version or None, namespace) for every function-like symbol."""
    root = ET.parse(path).getroot()
    for ns in root.findall(f"{{{CORE}}}namespace"):
        name = ns.get("name")

        def visit(node, inherited):
            own = parse_version(node.get("version"))
            version = newest(inherited, own)
            getter = node.get(f"{{{GLIB_NS}}}get-type")
            if getter and getter != "intern":
                table.setdefault(getter, (version, name))
            ident = node.get(f"{{{C_NS}}}identifier")
            tag = node.tag.split("}")[1]
            if ident and tag in ("function", "method", "constructor"):
                known = table.get(ident, (None, name))[0]
                table[ident] = (newest(known, version), name)
            for child in node:
                if child.tag.split("}")[1] in (
                    "class", "record", "interface", "union", "enumeration", "bitfield",
                    "function", "method", "constructor", "boxed"):
                    visit(child, version)

        for child in ns:
            visit(child, None)


def newer_identifiers(path, newer):
    """Adds every C identifier (function, macro, constant, type) newer than 1.20 of one .gir."""
    root = ET.parse(path).getroot()
    for ns in root.findall(f"{{{CORE}}}namespace"):

        def visit(node, inherited):
            tag = node.tag.split("}")[1]
            if tag in ("type", "array", "parameters", "return-value", "field", "property",
                       "signal", "virtual-method", "doc", "source-position"):
                return
            version = newest(inherited, parse_version(node.get("version")))
            ident = node.get(f"{{{C_NS}}}identifier") or node.get(f"{{{C_NS}}}type")
            if ident and re.fullmatch(r"[A-Za-z_]\w*", ident) and version and \
                    version > BASELINE:
                newer.setdefault(ident, (version, ns.get("name")))
            for child in node:
                visit(child, version)

        for child in ns:
            visit(child, None)


def dynamic_symbols(library, which):
    out = subprocess.run(["nm", "-D", which, library], check=True, capture_output=True,
                         text=True).stdout
    symbols = set()
    for line in out.splitlines():
        fields = line.split()
        if fields:
            symbols.add(fields[-1].split("@")[0])
    return symbols


def load_allowlist(path):
    allowed = {}
    if not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                allowed[line] = number
    return allowed


DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")


def unguarded_uses(symbols, source_root):
    """(line, symbol) under source_root for each use of symbols outside a GST_CHECK_VERSION
    branch."""
    word = re.compile(r"\b[A-Za-z_]\w*\b")
    bad = []
    for path in sorted(glob.glob(os.path.join(source_root, "**", "*.*"), recursive=True)):
        if not path.endswith((".c", ".cpp", ".h", ".cu")):
            continue
        stack = []  # one entry per open #if: does this branch's condition chain name the guard
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = DIRECTIVE.match(line)
                if m:
                    kind, rest = m.group(1), m.group(2)
                    if kind in ("if", "ifdef", "ifndef"):
                        stack.append("GST_CHECK_VERSION" in rest)
                    elif kind in ("elif", "else") and stack:
                        stack[-1] = stack[-1] or "GST_CHECK_VERSION" in rest
                    elif kind == "endif" and stack:
                        stack.pop()
                    continue
                if any(stack):
                    continue
                for symbol in sorted(set(word.findall(line.split("//", 1)[0])) & symbols):
                    bad.append((f"{os.path.relpath(path, REPO)}:{number}", symbol))
    return bad


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builddir", nargs="?")
    parser.add_argument("--libraries", nargs="+", default=[])
    parser.add_argument("--gst-cuda", action="store_true",
                        help="the build has gst-cuda enabled (GStreamer >= 1.22 required)")
    parser.add_argument("--gir-dir", default="/usr/share/gir-1.0")
    parser.add_argument("--allowlist", default=os.path.join(HERE, "gst-api-allowlist.txt"))
    parser.add_argument("--sources", default=os.path.join(REPO, "gst"))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.builddir:
        args.libraries += [os.path.join(args.builddir, "gst", "libgstgpusift.so"),
                           os.path.join(args.builddir, "gst", "keypoints",
                                        "libgstkeypoints-1.0.so")]
        with open(os.path.join(args.builddir, "build.ninja"), encoding="utf-8") as f:
            args.gst_cuda = args.gst_cuda or "-DGPUSIFT_HAVE_GST_CUDA" in f.read()
    if not args.libraries:
        parser.error("a build directory or --libraries is needed")
    # What one of the libraries defines (the meta library for the plugin) is not GStreamer's.
    own = set()
    for library in args.libraries:
        own |= dynamic_symbols(library, "--defined-only")

    table = {}
    for ns in NAMESPACES:
        path = os.path.join(args.gir_dir, f"{ns}-1.0.gir")
        if os.path.exists(path):
            load_gir(path, table)
        elif ns in ("Gst", "GstBase", "GstVideo"):
            sys.exit(f"{path} is missing (gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0)")
    allowed = load_allowlist(args.allowlist)

    failures = []
    checked = 0
    unknown = set()
    guarded_seen = set()
    for library in args.libraries:
        for symbol in sorted(dynamic_symbols(library, "--undefined-only") - own):
            if symbol not in table:
                if symbol.startswith(("gst_", "_gst_")):
                    unknown.add(symbol)
                continue
            checked += 1
            version, ns = table[symbol]
            if ns == CUDA_NAMESPACE:
                version = newest(version, CUDA_VERSION)
                if args.gst_cuda:
                    continue
                failures.append(f"{os.path.basename(library)}: {symbol} ({ns}, public from "
                                f"{version[0]}.{version[1]}) in a build without gst-cuda")
                continue
            if version is None or version <= BASELINE:
                continue
            if symbol in allowed:
                guarded_seen.add(symbol)
                if args.verbose:
                    print(f"{os.path.basename(library)}: {symbol} {version[0]}.{version[1]} "
                          "guarded")
                continue
            failures.append(f"{os.path.basename(library)}: {symbol} ({ns} "
                            f"{version[0]}.{version[1]}) is newer than 1.20 and not guarded")

    # Macros, inline functions, constants and types leave no import behind: the sources are
    # searched for those newer than 1.20 too (gstreamer-cuda's are kept to its own files by
    # meson and by GPUSIFT_HAVE_GST_CUDA, and checked above through the gst-cuda-less build).
    newer = {}
    for ns in NAMESPACES:
        path = os.path.join(args.gir_dir, f"{ns}-1.0.gir")
        if ns != CUDA_NAMESPACE and os.path.exists(path):
            newer_identifiers(path, newer)
    for use, symbol in unguarded_uses(set(allowed) | set(newer), args.sources):
        failures.append(f"{use}: {symbol} (newer than 1.20) used outside a GST_CHECK_VERSION "
                        "branch")

    if unknown:
        print("not in the .gir files (variables and private helpers of the GST_* macros), not "
              "checked: " + " ".join(sorted(unknown)))
    print(f"{checked} GStreamer symbols imported by {len(args.libraries)} libraries "
          f"({'with' if args.gst_cuda else 'without'} gst-cuda) checked against "
          f"{BASELINE[0]}.{BASELINE[1]}; {len(guarded_seen)} newer ones allow-listed as guarded")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
