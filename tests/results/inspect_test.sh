#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gst-inspect-1.0 on each element given, as a user first meets it: it loads from the built
# plugin, says what it is, lists the properties named after it (NAME=PROPERTY,...), and prints no
# GLib warning or critical (a default outside its range, a property id used twice).
#   inspect_test.sh ELEMENT=PROPERTY,PROPERTY... ...
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for spec in "$@"; do
  element=${spec%%=*}
  if ! gst-inspect-1.0 "$element" >"$work/out" 2>"$work/err"; then
    echo "gst-inspect-1.0 $element failed:"
    cat "$work/out" "$work/err"
    exit 1
  fi
  if [ -s "$work/err" ]; then
    echo "gst-inspect-1.0 $element printed on stderr:"
    cat "$work/err"
    exit 1
  fi
  grep -q "^  Long-name  *Keypoint results" "$work/out" ||
    { echo "$element: no Long-name"; cat "$work/out"; exit 1; }
  grep -q "^  Klass  *Sink/" "$work/out" || { echo "$element: not a Sink"; exit 1; }
  IFS=, read -r -a properties <<<"${spec#*=}"
  for property in "${properties[@]}"; do
    grep -q "^  $property  *: " "$work/out" || { echo "$element: no property $property"; exit 1; }
  done
  if [ "$element" = keypointmqttsink ]; then
    # The password never shows: write-only, so no value is printed.
    grep -A2 "^  password " "$work/out" | grep -q "Write only" ||
      { echo "keypointmqttsink: password is not write-only"; exit 1; }
  fi
  echo "$element: ${#properties[@]} properties listed, nothing on stderr"
done
