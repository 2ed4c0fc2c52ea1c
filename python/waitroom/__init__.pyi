from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Union, overload

import pandas as pd

version: str

class ScenarioError(ValueError):
    message: str
    where: str
    pointer: str
    expected: str
    found: str
    def __init__(self, message: str, where: str = ..., expected: str = ..., found: str = ...) -> None: ...

class Scenario:
    name: str
    base_dir: str
    @overload
    def set(self, pointer: str, value: Any) -> "Scenario": ...
    @overload
    def set(self, pointer: Dict[str, Any]) -> "Scenario": ...
    def unset(self, pointer: str) -> "Scenario": ...
    def to_dict(self) -> dict: ...
    def to_json(self, indent: int = ...) -> str: ...

class Result:
    json: str
    data: dict
    replications: int
    @property
    def waits(self) -> pd.DataFrame: ...
    @property
    def series(self) -> pd.DataFrame: ...
    def histogram(self, cls: str = ...) -> pd.DataFrame: ...
    def html(self) -> str: ...
    def _repr_html_(self) -> str: ...

def load(path_or_dict: Union[str, PathLike, dict], name: Optional[str] = ...) -> Scenario: ...
def run(scenario: Union[Scenario, dict, str, PathLike], seed: Optional[int] = ...,
        replications: int = ..., threads: int = ...,
        progress: Optional[Callable[[float, int, int], None]] = ...) -> Result: ...

class Check:
    json: str
    data: dict
    verdicts: pd.DataFrame
    passed: bool

def check(scenario: Union[Scenario, dict, str, PathLike], seed: Optional[int] = ...,
          threads: int = ...) -> Check: ...

class Comparison:
    json: str
    data: dict
    table: pd.DataFrame

def compare(scenario: Union[Scenario, dict, str, PathLike], variants: Dict[str, Dict[str, Any]],
            seed: Optional[int] = ..., replications: int = ..., threads: int = ...) -> Comparison: ...

class Estimate:
    json: str
    data: dict
    model: Optional[str]
    reason: Optional[str]
    rows: pd.DataFrame

def estimate(scenario: Union[Scenario, dict, str, PathLike], seed: Optional[int] = ...,
             replications: int = ..., threads: int = ...) -> Estimate: ...

Axes = Dict[str, Union[str, Sequence[float]]]

class Sweep:
    json: str
    data: dict
    table: pd.DataFrame
    text: str

def sweep(scenario: Union[Scenario, dict, str, PathLike], vary: Axes, replications: int = ...,
          seed: Optional[int] = ..., threads: int = ...) -> Sweep: ...

class Plan:
    json: str
    data: dict
    table: pd.DataFrame
    text: str
    feasible: List[float]
    least: Optional[float]

def plan(scenario: Union[Scenario, dict, str, PathLike], knobs: Axes,
         replications: Optional[int] = ..., search: bool = ...,
         ties: Optional[Dict[str, str]] = ..., seed: Optional[int] = ...,
         threads: int = ...) -> Plan: ...
