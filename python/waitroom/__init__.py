"""waitroom in a notebook: load a scenario, run it in-process, get pandas DataFrames.

    import waitroom
    s = waitroom.load("scenarios/clinic.json").set("/release/batch", 8)
    r = waitroom.run(s, seed=1, replications=10)
    r.waits          # one row per class
    r.json           # exactly `waitroom run --format json`

Everything runs in the C++ libraries (the extension waitroom._waitroom); a scenario is
validated with the messages the CLI prints, and a bad one raises ScenarioError.
"""

import copy
import html as _html
import io
import json
import os

import pandas as pd

__all__ = ["ScenarioError", "Scenario", "Result", "Check", "Comparison", "load", "run", "check",
           "compare", "Estimate", "estimate", "Sweep", "sweep", "Plan", "plan", "version"]


class ScenarioError(ValueError):
    """A scenario, or an argument, that waitroom refuses: where (the file and the JSON
    pointer or argument), what was expected and what was found, as the CLI says them."""

    def __init__(self, message, where="", expected="", found=""):
        super().__init__(message)
        self.message = message
        self.where = where
        self.expected = expected
        self.found = found
        # "file: /pointer" -> "/pointer"; an argument's name as it is.
        tail = where.rsplit(": ", 1)[-1]
        self.pointer = tail if tail.startswith("/") else ""


from . import _waitroom as _ext  # noqa: E402  (after ScenarioError: the module raises it)

version = _ext.version


def _dumps(doc):
    return json.dumps(doc, separators=(",", ":"))


class Scenario:
    """A validated scenario. `set` and `unset` return the scenario (they chain) and are
    checked at once, as `--set` and `--unset` are."""

    def __init__(self, doc, name, base_dir):
        _ext.validate(_dumps(doc), name, base_dir)
        self._doc = doc
        self.name = name
        self.base_dir = base_dir

    def set(self, pointer, value=None):
        """Sets the value at a JSON pointer (`--set /pointer=VALUE`); value is any JSON-able
        Python value. A dict {pointer: value, ...} sets several at once, validated together
        (class shares that must keep summing to 1). The scenario must stay valid."""
        changes = pointer if isinstance(pointer, dict) else {pointer: value}
        text = _dumps(self._doc)
        for p, v in changes.items():
            if not isinstance(p, str):
                raise ScenarioError("set: expected a JSON pointer string, found " +
                                    type(p).__name__, "set", "a JSON pointer string",
                                    type(p).__name__)
            text = _ext.set(text, self.name, p + "=" + json.dumps(v))
        _ext.validate(text, self.name, self.base_dir)
        self._doc = json.loads(text)
        return self

    def unset(self, pointer):
        """Removes the value at a JSON pointer (`--unset /pointer`)."""
        text = _ext.unset(_dumps(self._doc), self.name, pointer)
        _ext.validate(text, self.name, self.base_dir)
        self._doc = json.loads(text)
        return self

    def to_dict(self):
        return copy.deepcopy(self._doc)

    def to_json(self, indent=2):
        return json.dumps(self._doc, indent=indent)

    def __repr__(self):
        return "waitroom.Scenario({!r})".format(self.name)


def load(path_or_dict, name=None):
    """A scenario from a JSON file's path or a dict (validated)."""
    if isinstance(path_or_dict, dict):
        name = name if name is not None else path_or_dict.get("name", "scenario")
        if not isinstance(name, str):
            raise ScenarioError("name: expected a string (the scenario's name in messages), "
                                "found {!r}".format(name), "name",
                                "a string (the scenario's name in messages)", repr(name))
        return Scenario(copy.deepcopy(path_or_dict), name or "scenario", ".")
    path = os.fspath(path_or_dict)
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except OSError as e:
        raise ScenarioError("{}: expected a readable scenario file, found {}".format(
            path, e.strerror.lower() if e.strerror else e), path, "a readable scenario file",
            e.strerror or str(e)) from None
    # The library's reader reports malformed JSON with its line and column.
    doc = json.loads(_ext.parse(text, path))
    return Scenario(doc, path, os.path.dirname(path) or ".")


class Result:
    """A run's result. `json` is the CLI's JSON text; `data` the same parsed; `waits` a
    DataFrame with one row per class (and `all`)."""

    def __init__(self, text, name):
        self.json = text
        self.data = json.loads(text)
        self.replications = self.data.get("replications", 1)
        self._name = name

    def histogram(self, cls="all"):
        """The released users' waits of a class (`all`: everyone) as the result's histogram:
        a row per non-empty bucket, lower_s (inclusive), upper_s (exclusive), count; pooled
        over the replications when there are several. Buckets are at most 0.78% wide
        relative to their value (the result's `max_relative_bucket_width`)."""
        if cls == "all":
            block = self.data["overall"]
        else:
            names = [c["name"] for c in self.data["classes"]]
            if cls not in names:
                raise ScenarioError(
                    "histogram: expected a class of the scenario ({}) or 'all', found {!r}".format(
                        ", ".join(names), cls), "histogram",
                    "a class of the scenario ({}) or 'all'".format(", ".join(names)), repr(cls))
            block = self.data["classes"][names.index(cls)]
        if self.replications > 1:
            block = block["pooled"]
        h = block.get("wait_histogram") or {"buckets": [], "unit": "ns"}
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[h.get("unit", "ns")]
        rows = [(lo * scale, hi * scale, n) for lo, hi, n in h["buckets"]]
        out = pd.DataFrame(rows, columns=["lower_s", "upper_s", "count"])
        return out.astype({"lower_s": "float64", "upper_s": "float64", "count": "int64"})

    def html(self):
        """The self-contained HTML report (uPlot charts), as `waitroom run --html` writes it."""
        return _ext.html(self.json, self._name)

    def _repr_html_(self):
        # In an iframe: the page's scripts and styles stay its own in a notebook.
        return ('<iframe srcdoc="{}" style="width: 100%; height: 640px; border: 0"></iframe>'
                .format(_html.escape(self.html(), quote=True)))

    @property
    def waits(self):
        """One row per class. A single run: the CLI's `--format csv` columns (arrived,
        released, abandoned, wait_mean_s, wait_p50_s ... wait_max_s, ...). Replications: per
        metric its estimate and `<metric>_ci_low`, `<metric>_ci_high` (95%)."""
        table = pd.read_csv(io.StringIO(_ext.run_csv(self.json)))
        # A scenario whose one class is named `all` has its rows twice (the class and everyone).
        table = table.drop_duplicates(ignore_index=True)
        if "metric" not in table.columns:
            return table.set_index("class")
        order = list(dict.fromkeys(table["class"]))
        wide = table.pivot(index="class", columns="metric",
                           values=["estimate", "ci_low", "ci_high"]).reindex(order)
        out = pd.DataFrame(index=wide.index)
        for metric in dict.fromkeys(table["metric"]):
            out[metric] = wide[("estimate", metric)]
            out[metric + "_ci_low"] = wide[("ci_low", metric)]
            out[metric + "_ci_high"] = wide[("ci_high", metric)]
        out.columns.name = None
        return out

    @property
    def series(self):
        """A single run's samples in long format: columns t_s, variable (`length`, then
        `waiting_<class>` per class, `released_since_previous`: the columns of `waitroom run
        --series`) and value. Replications keep no time series: ScenarioError."""
        if self.replications > 1:
            raise ScenarioError(
                "series: expected a single run (replications keep no time series), found {} "
                "replications".format(self.replications), "series",
                "a single run (replications keep no time series)",
                "{} replications".format(self.replications))
        wide = pd.read_csv(io.StringIO(_ext.series_csv(self.json)))
        return wide.melt(id_vars="t_s", var_name="variable", value_name="value")

    def __repr__(self):
        return "waitroom.Result({} replication(s))".format(self.replications)


def _scenario(scenario):
    return scenario if isinstance(scenario, Scenario) else load(scenario)


# The CLI's bounds: --replications 1..100000, --threads up to 1024, --seed up to 2^53.
_MOST = {"replications": 100000, "threads": 1024, "seed": 2 ** 53}


def _whole(arg, value, least):
    most = _MOST[arg]
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise ScenarioError(
            "{}: expected a whole number from {} to {}, found {!r}".format(
                arg, least, most, value), arg,
            "a whole number from {} to {}".format(least, most), repr(value))


def run(scenario, seed=None, replications=1, threads=0, progress=None):
    """Runs the scenario (a Scenario, a dict or a path) as `waitroom run` does: one run, or
    `replications` of them on `threads` threads (0: every core), the seed the scenario's
    unless given. The GIL is released while it runs. One run calls progress(simulated_s,
    waiting, events) at each of the scenario's samples, and stops there on Ctrl-C
    (KeyboardInterrupt) or on an exception progress raises."""
    scenario = _scenario(scenario)
    _whole("replications", replications, 1)
    _whole("threads", threads, 0)
    if seed is not None:
        _whole("seed", seed, 0)
    if progress is not None and not callable(progress):
        raise ScenarioError("progress: expected a callable, found " + type(progress).__name__,
                            "progress", "a callable", type(progress).__name__)
    if progress is not None and replications > 1:
        raise ScenarioError(
            "progress: expected a single run (replications report no progress), found {} "
            "replications".format(replications), "progress",
            "a single run (replications report no progress)",
            "{} replications".format(replications))
    return Result(_ext.run(_dumps(scenario._doc), scenario.name, scenario.base_dir, seed,
                           replications, threads, progress), scenario._doc.get("name", ""))


class Check:
    """A scenario's SLA checked (`waitroom check`): `json` is the CLI's JSON text, `data` the
    same parsed, `verdicts` a DataFrame with a row per target (the CLI's `--format csv`
    columns: scenario, class, metric, limit_kind, limit, estimate, ci_low, ci_high,
    confidence, replications, pass) and `passed` whether every target holds. A failed SLA is
    a result, not an exception."""

    def __init__(self, text):
        self.json = text
        self.data = json.loads(text)
        self.verdicts = pd.read_csv(io.StringIO(_ext.check_csv(text)))
        self.passed = bool(self.verdicts["pass"].all())

    def __repr__(self):
        return "waitroom.Check({})".format("passed" if self.passed else "FAILED")


def check(scenario, seed=None, threads=0):
    """Checks the scenario's `sla` block as `waitroom check` does: its replications on
    `threads` threads (0: every core), the scenario's seed unless given."""
    scenario = _scenario(scenario)
    _whole("threads", threads, 0)
    if seed is not None:
        _whole("seed", seed, 0)
    return Check(_ext.check(_dumps(scenario._doc), scenario.name, scenario.base_dir, seed,
                            threads))


class Comparison:
    """Variants of a scenario against it (`waitroom compare`): `json` is the CLI's JSON text,
    `data` the same parsed, `table` a DataFrame with the CLI's `--format csv` columns
    (variant, class, metric, estimate, ci_low, ci_high, and the paired difference from the
    base with its interval)."""

    def __init__(self, text):
        self.json = text
        self.data = json.loads(text)
        self.table = pd.read_csv(io.StringIO(_ext.compare_csv(text)))

    def __repr__(self):
        return "waitroom.Comparison({} variant(s))".format(len(self.data.get("variants", [])))


def compare(scenario, variants, seed=None, replications=10, threads=0):
    """Runs the scenario (`base`) and each variant, {name: {pointer: value, ...}} applied to a
    copy of it, `replications` times on one seed (common random numbers: every variant sees
    the same users), as `waitroom compare` does."""
    base = _scenario(scenario)
    if not isinstance(variants, dict) or not variants:
        raise ScenarioError("variants: expected at least one {name: {pointer: value}}, found " +
                            repr(variants), "variants",
                            "at least one {name: {pointer: value}}", repr(variants))
    _whole("replications", replications, 2)
    _whole("threads", threads, 0)
    if seed is not None:
        _whole("seed", seed, 0)
    pairs = [("base", _dumps(base._doc))]
    for name, changes in variants.items():
        if not isinstance(name, str) or not name or name == "base":
            raise ScenarioError(
                "variants: expected a variant name other than 'base' (the scenario as given is "
                "called that), found {!r}".format(name), "variants",
                "a variant name other than 'base' (the scenario as given is called that)",
                repr(name))
        if not isinstance(changes, dict) or not changes:
            raise ScenarioError(
                "variants/{}: expected {{pointer: value, ...}}, found {!r}".format(name, changes),
                "variants/" + name, "{pointer: value, ...}", repr(changes))
        try:
            v = Scenario(copy.deepcopy(base._doc), base.name, base.base_dir).set(changes)
        except ScenarioError as e:  # which variant, then where in it
            raise ScenarioError("variants/{}: {}".format(name, e.message),
                                "variants/{}: {}".format(name, e.where), e.expected,
                                e.found) from None
        pairs.append((name, _dumps(v._doc)))
    return Comparison(_ext.compare(base.name, pairs, base.base_dir, seed, replications, threads))


class Estimate:
    """The closed form that matches a scenario beside the simulation (`waitroom estimate`):
    `json` is the CLI's JSON text, `data` the same parsed, `model` the queueing model's name
    (None with `reason` when no closed form applies), `rows` a DataFrame with a row per class
    or probability: name, closed_form (NaN without one), estimate, ci_low, ci_high (the
    simulation's 95% interval) and inside (the closed form within it)."""

    def __init__(self, text):
        self.json = text
        self.data = json.loads(text)
        self.model = self.data["model"]
        self.reason = self.data["reason"]
        self.rows = pd.DataFrame(
            [(r["name"], r["closed_form"], r["simulated"]["estimate"], r["simulated"]["ci"][0],
              r["simulated"]["ci"][1], r["inside"]) for r in self.data["rows"]],
            columns=["name", "closed_form", "estimate", "ci_low", "ci_high", "inside"]).astype(
                {"closed_form": "float64", "estimate": "float64", "ci_low": "float64",
                 "ci_high": "float64"})

    def __repr__(self):
        return "waitroom.Estimate({})".format(self.model or "no closed form")


def estimate(scenario, seed=None, replications=10, threads=0):
    """The closed form (Erlang C, Cobham's priority formula, Erlang A ...) that matches the
    scenario beside `replications` simulated runs, as `waitroom estimate` does."""
    scenario = _scenario(scenario)
    _whole("replications", replications, 2)
    _whole("threads", threads, 0)
    if seed is not None:
        _whole("seed", seed, 0)
    return Estimate(_ext.estimate(_dumps(scenario._doc), scenario.name, scenario.base_dir, seed,
                                  replications, threads))


def _axes(arg, axes):
    """{pointer: "LO:HI[:STEP]" or [values]} as the extension's (pointer, range) pairs."""
    if not isinstance(axes, dict) or not axes:
        raise ScenarioError("{}: expected {{pointer: 'LO:HI[:STEP]' or [values], ...}}, found "
                            "{!r}".format(arg, axes), arg,
                            "{pointer: 'LO:HI[:STEP]' or [values], ...}", repr(axes))
    out = []
    for pointer, values in axes.items():
        if not isinstance(pointer, str):
            raise ScenarioError("{}: expected a JSON pointer string, found {!r}".format(
                arg, pointer), arg, "a JSON pointer string", repr(pointer))
        if isinstance(values, str):
            out.append((pointer, values))
            continue
        try:
            if any(isinstance(v, (bool, str, bytes)) for v in values):
                raise TypeError
            numbers = [float(v) for v in values]
        except (TypeError, ValueError):
            raise ScenarioError("{} {}: expected 'LO:HI[:STEP]' or a list of numbers, found "
                                "{!r}".format(arg, pointer, values), arg + " " + pointer,
                                "'LO:HI[:STEP]' or a list of numbers", repr(values)) from None
        out.append((pointer, numbers))
    return out


class _Grid:
    def __init__(self, parts):
        self.json, csv, self.text = parts
        self.data = json.loads(self.json)
        self.table = pd.read_csv(io.StringIO(csv))

    def __str__(self):
        return self.text


class Sweep(_Grid):
    """A grid of settings run as `waitroom sweep` runs it: `json` is the CLI's JSON text,
    `data` the same parsed, `table` a DataFrame of the CLI's `--csv` (a row per point, class
    and metric: the axes' pointers, class, metric, estimate, ci_low, ci_high; each SLA
    target's verdict is in `data`), `text` the CLI's table."""

    def __repr__(self):
        return "waitroom.Sweep({} point(s))".format(len(self.data["points"]))


def sweep(scenario, vary, replications=5, seed=None, threads=0):
    """Runs every point of the grid `vary` spans, {pointer: "START:STOP[:STEP]" or [values]}
    (the first pointer outermost), `replications` times each on one seed (common random
    numbers; a /seed axis gives each point its own), as `waitroom sweep --vary` does. Ctrl-C
    stops it, and every replication running, at the next sample."""
    scenario = _scenario(scenario)
    axes = _axes("vary", vary)
    _whole("replications", replications, 2)
    _whole("threads", threads, 0)
    if seed is not None:
        _whole("seed", seed, 0)
    return Sweep(_ext.sweep(_dumps(scenario._doc), scenario.name, scenario.base_dir, axes,
                            replications, seed, threads))


class Plan(_Grid):
    """The settings where every SLA holds, as `waitroom plan` finds them: `json`, `data`,
    `table` (the CLI's `--csv` of the values simulated) and `text` (the CLI's table with its
    verdict lines) as for a Sweep; `feasible` the values of a one-knob plan where every SLA
    holds, ascending (after a bisection, every grid value in the interval it found; then
    those past the grid that hold); `least` the least capacity the search past the grid found (None when it did not
    run or found none)."""

    def __init__(self, parts):
        super().__init__(parts[:3])
        self.feasible = list(parts[3])
        past = self.data.get("past_grid") or {}
        self.least = past.get("least")

    def __repr__(self):
        return "waitroom.Plan({} value(s) simulated)".format(len(self.data["points"]))


def plan(scenario, knobs, replications=None, search=False, ties=None, seed=None, threads=0):
    """Plans one or two knobs, {pointer: "LO:HI[:STEP]" or [values]}, against the scenario's
    `sla` block as `waitroom plan --knob --range` does: each value `replications` times (the
    sla block's count unless given), every value or with `search` the bisection from the
    closed form's first guess; `ties` {pointer: expression in x, such as "30-x" or "2*x"} set
    other keys from the first knob's value x (`--tie`). For a capacity knob where no value holds it searches past the grid for
    the least that does. Ctrl-C stops it, and every replication running, at the next
    sample."""
    scenario = _scenario(scenario)
    axes = _axes("knobs", knobs)
    if replications is not None:
        _whole("replications", replications, 2)
    _whole("threads", threads, 0)
    if seed is not None:
        _whole("seed", seed, 0)
    if not isinstance(search, bool):
        raise ScenarioError("search: expected True or False, found {!r}".format(search),
                            "search", "True or False", repr(search))
    ties = {} if ties is None else ties
    if not isinstance(ties, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in ties.items()):
        raise ScenarioError("ties: expected {pointer: expression in x, such as '2*x'}, found " +
                            repr(ties), "ties", "{pointer: expression in x, such as '2*x'}",
                            repr(ties))
    return Plan(_ext.plan(_dumps(scenario._doc), scenario.name, scenario.base_dir, axes,
                          list(ties.items()), replications or 0, search, seed, threads))
