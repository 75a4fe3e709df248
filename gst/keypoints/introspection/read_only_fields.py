#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Copies a .gir with the fields of the named records made read-only for bindings.

g-ir-scanner marks every public struct field writable and has no annotation to say otherwise.
The metas' fields describe arrays that only the add functions set, and a binding that writes
n_keypoints makes every reader's count wrong; without writable="1" PyGObject (and other
bindings) refuse the assignment.

usage: read_only_fields.py IN.gir OUT.gir RECORD [RECORD ...]
"""

import re
import sys


def main(source, target, records):
    inside = None
    changed = {name: 0 for name in records}
    lines = []
    with open(source, encoding="utf-8") as gir:
        for line in gir:
            opening = re.match(r'\s*<record name="([^"]+)"', line)
            if opening:
                inside = opening.group(1) if opening.group(1) in changed else None
            elif re.match(r"\s*</record>", line):
                inside = None
            elif inside and re.match(r'\s*<field name="[^"]+" writable="1"', line):
                line = line.replace(' writable="1"', "", 1)
                changed[inside] += 1
            lines.append(line)
    missing = [name for name, count in changed.items() if count == 0]
    if missing:
        sys.exit(f"{source}: no writable fields in record(s) {', '.join(missing)}")
    with open(target, "w", encoding="utf-8") as gir:
        gir.writelines(lines)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
