"""Modules imported on first use, so that ``oracle-tools --help`` and single lookups start fast.

>>> pl = LazyModule("polars")   # nothing imported yet
>>> pl.DataFrame                # now it is                                 # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
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


class LazyMapping(Mapping[str, Any]):
    """A dict built by ``factory`` on first use (a Polars schema that should not import Polars at import)."""

    def __init__(self, factory: Callable[[], dict[str, Any]]) -> None:
        self._factory = factory
        self._data: dict[str, Any] | None = None

    def _get(self) -> dict[str, Any]:
        if self._data is None:
            self._data = self._factory()
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())
