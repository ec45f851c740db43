"""Modules imported on first use, so that ``oracle-tools --help`` and single lookups start fast.

>>> pl = LazyModule("polars")   # nothing imported yet
>>> pl.DataFrame                # now it is                                 # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for a module; the first attribute access imports it (once) and hands the attribute over."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self.__dict__.get("_module")
        if module is None:
            module = self.__dict__["_module"] = importlib.import_module(self.__dict__["_name"])
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
