"""Types of ``plogscan``'s namespace: the library functions it loads on first use."""

from plogscan.api import UnknownCode as UnknownCode
from plogscan.api import diagnose as diagnose
from plogscan.api import explain as explain
from plogscan.api import read_events as read_events
from plogscan.api import rules as rules

__version__: str
__all__: list[str]
