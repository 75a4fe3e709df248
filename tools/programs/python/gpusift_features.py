#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Deprecated name of gpusift.features_file, kept so that scripts written for it still run:
`import gpusift_features` gives the module gpusift.features_file itself, and running this file
runs its program (Debian's /usr/bin/python3, which has numpy)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpusift import features_file as _features_file  # noqa: E402

if __name__ == "__main__":
    sys.exit(_features_file.main())
sys.modules[__name__] = _features_file
