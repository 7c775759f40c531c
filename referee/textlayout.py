"""Deprecated path: this module is now :mod:`referee.engine.textlayout`
(the old path goes in 0.7)."""

import sys
import warnings

from referee.engine import textlayout as _moved

warnings.warn("referee.textlayout is now referee.engine.textlayout; "
              "the old path goes in referee 0.7", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
