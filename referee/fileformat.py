"""Deprecated path: this module is now :mod:`referee.ledger.fileformat`
(the old path goes in 0.7)."""

import sys
import warnings

from referee.ledger import fileformat as _moved

warnings.warn("referee.fileformat is now referee.ledger.fileformat; "
              "the old path goes in referee 0.7", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
