# SPDX-License-Identifier: LGPL-2.1-or-later
"""Deprecated name of gpusift.metas, kept so that scripts written for it still run: `import
gst_keypoints` gives the module gpusift.metas itself."""

import sys

from gpusift import metas as _metas

sys.modules[__name__] = _metas
