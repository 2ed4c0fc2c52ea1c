"""`import waitroom`: the module against the CLI it mirrors (byte-identical JSON, the same
CSV columns, the same messages for bad input), its DataFrames, determinism across threads and
a run that leaves the interpreter free (the GIL released). Run by ctest (label `python`) with
PYTHONPATH at the built package and WAITROOM_BINARY at the program."""

import json
import os
import subprocess
import threading
import time

import pandas as pd
import pytest

import waitroom

BINARY = os.environ["WAITROOM_BINARY"]
SOURCE = os.environ["WAITROOM_SOURCE_DIR"]
CLINIC = os.path.join(SOURCE, "scenarios", "clinic.json")
MMC = os.path.join(SOURCE, "scenarios", "mmc_validation.json")

# Small: 2 classes, 2 minutes at 40/s, 30/s released, patience: a queue that builds and drains.
SMALL = {
    "name": "small", "seed": 4,
    "classes": [{"name": "vip", "share": 0.2, "offset_ms": 10000,
                 "patience_s": {"dist": "exponential", "mean": 120}},
                {"name": "normal", "share": 0.8,
                 "patience_s": {"dist": "exponential", "mean": 120}}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 120, "rate_per_s": 40}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 6},
}


def cli(*args):
    r = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def written(tmp_path, doc):
    path = tmp_path / (doc["name"] + ".json")
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.fixture
def small_file(tmp_path):
    return written(tmp_path, SMALL)


def test_a_run_is_the_clis_json_byte_for_byte(small_file):
    code, out, err = cli("run", small_file, "--format", "json", "--quiet", "--seed", "3")
    assert code == 0, err
    assert waitroom.run(waitroom.load(small_file), seed=3).json == out
    code, out, err = cli("run", small_file, "--format", "json", "--quiet", "--seed", "3",
                         "--replications", "4", "--threads", "2")
    assert code == 0, err
    assert waitroom.run(small_file, seed=3, replications=4, threads=2).json == out


def test_replications_give_the_same_json_whatever_the_thread_count(small_file):
    one = waitroom.run(small_file, replications=5, threads=1).json
    assert waitroom.run(small_file, replications=5, threads=2).json == one
    assert waitroom.run(small_file, replications=5, threads=7).json == one


def test_waits_are_the_clis_csv_with_one_row_per_class(small_file):
    r = waitroom.run(small_file, seed=3)
    code, out, _ = cli("run", small_file, "--format", "csv", "--quiet", "--seed", "3")
    assert code == 0
    csv = pd.read_csv(__import__("io").StringIO(out)).set_index("class")
    pd.testing.assert_frame_equal(r.waits, csv)
    assert list(r.waits.index) == ["vip", "normal", "all"]
    assert r.waits["arrived"].dtype == "int64"
    assert r.waits["wait_p95_s"].dtype == "float64"
    assert not any(c.endswith("_ci_low") for c in r.waits.columns)  # no interval for one run
    assert r.waits.loc["all", "arrived"] == r.data["overall"]["arrived"]


def test_replicated_waits_carry_intervals(small_file):
    r = waitroom.run(small_file, replications=4)
    w = r.waits
    assert list(w.index) == ["vip", "normal", "all"]
    for metric in ("mean_wait_s", "p95_wait_s", "abandoned_share"):
        assert w[metric].dtype == "float64"
        assert (w[metric + "_ci_low"] <= w[metric]).all()
        assert (w[metric] <= w[metric + "_ci_high"]).all()
    vip = next(c for c in r.data["classes"] if c["name"] == "vip")
    assert w.loc["vip", "mean_wait_s"] == vip["mean_wait_s"]["estimate"]
    assert [w.loc["vip", "mean_wait_s_ci_low"], w.loc["vip", "mean_wait_s_ci_high"]] == \
        vip["mean_wait_s"]["ci"]


def test_set_unset_and_round_trips():
    s = waitroom.load(CLINIC)
    assert s.set("/release/batch", 8) is s
    assert s.to_dict()["release"]["batch"] == 8
    s.unset("/description")
    assert "description" not in s.to_dict()
    assert json.loads(s.to_json()) == s.to_dict()
    d = s.to_dict()
    d["release"]["batch"] = 1  # a copy: the scenario keeps its own
    assert s.to_dict()["release"]["batch"] == 8
    assert waitroom.load(s.to_dict()).to_dict() == s.to_dict()


# The CLI's own bad inputs, each refused by the module with the CLI's message.
BAD_SETS = [
    ("/classes/0/share", "-1"),
    ("/release/batch", "0"),
    ("/classes/1/name", '"vip"'),
    ("/release/interval_ms", "[]"),
    ("/arrivals/process", '"weekly"'),
    ("/queue/policy", '"random"'),
    ("/classes/0/offset_ms", '"soon"'),
    ("/run/horizon_s", "-5"),
]
BAD_UNSETS = ["/arrivals", "/classes", "/release/batch"]


@pytest.mark.parametrize("pointer,value", BAD_SETS)
def test_a_bad_set_raises_the_clis_message(pointer, value):
    code, _, err = cli("validate", CLINIC, "--set", pointer + "=" + value)
    assert code == 2
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.load(CLINIC).set(pointer, json.loads(value))
    assert isinstance(e.value, ValueError)
    assert "waitroom: " + str(e.value) == err.strip()
    assert e.value.pointer.startswith(pointer.rsplit("/", 1)[0])


@pytest.mark.parametrize("pointer", BAD_UNSETS)
def test_a_bad_unset_raises_the_clis_message(pointer):
    code, _, err = cli("validate", CLINIC, "--unset", pointer)
    assert code == 2
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.load(CLINIC).unset(pointer)
    assert "waitroom: " + str(e.value) == err.strip()


def test_files_that_cannot_be_read_or_parsed(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",\n  "classes": [}\n')
    code, _, err = cli("validate", str(bad))
    assert code == 2
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.load(str(bad))
    assert "waitroom: " + str(e.value) == err.strip()
    with pytest.raises(waitroom.ScenarioError, match="absent.json"):
        waitroom.load(str(tmp_path / "absent.json"))


@pytest.mark.parametrize("kwargs", [{"replications": 0}, {"threads": -1}, {"seed": -1},
                                    {"replications": 2.5}, {"seed": True}, {"seed": 2 ** 64},
                                    {"seed": 2 ** 53 + 1}, {"threads": 1025},
                                    {"replications": 100001},
                                    {"replications": 2, "progress": print}])
def test_bad_arguments_raise(small_file, kwargs):
    with pytest.raises(waitroom.ScenarioError):
        waitroom.run(small_file, **kwargs)


def test_a_run_releases_the_gil():
    # Ten hours of the clinic (900,000 users, 4 replications on one thread: about a second): a
    # second thread counts while it runs; holding the GIL, the count would stay where it was
    # until the run ended.
    s = waitroom.load(CLINIC).set("/arrivals/segments/0/duration_s", 36000)
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    started = time.monotonic()
    waitroom.run(s, replications=4, threads=1)
    ended = time.monotonic()
    done.set()
    t.join()
    during = [x for x in ticks if started + 0.05 < x < ended - 0.05]
    assert ended - started > 0.3, "the run was too short to tell"
    assert len(during) > 50, (len(during), ended - started)


def test_check_is_the_clis_check_and_a_failure_is_a_result():
    code, out, err = cli("check", CLINIC, "--format", "json", "--quiet", "--seed", "5")
    assert code == 0, err
    c = waitroom.check(CLINIC, seed=5)
    assert c.json == out
    assert c.passed
    code, out, _ = cli("check", CLINIC, "--format", "csv", "--quiet", "--seed", "5")
    pd.testing.assert_frame_equal(c.verdicts, pd.read_csv(__import__("io").StringIO(out)))
    assert c.data["pass"] is True
    strict = waitroom.load(CLINIC).set("/sla/targets/0/max", 1)
    failed = waitroom.check(strict, seed=5, threads=2)
    assert not failed.passed
    assert not failed.verdicts.loc[0, "pass"] and failed.verdicts.loc[1:, "pass"].all()
    code, _, _ = cli("check", CLINIC, "--set", "/sla/targets/0/max=1", "--quiet", "--seed", "5")
    assert code == 1  # the CLI fails the job; the module returns the verdicts


def test_check_without_an_sla_raises_the_clis_message(small_file):
    code, _, err = cli("check", small_file, "--quiet")
    assert code == 2
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.check(small_file)
    assert "waitroom: " + str(e.value) == err.strip()


def test_progress_sees_the_run_advance_and_changes_nothing(small_file):
    seen = []
    r = waitroom.run(small_file, seed=3, progress=lambda t, waiting, events: seen.append((t, events)))
    assert r.json == waitroom.run(small_file, seed=3).json
    assert len(seen) > 10
    assert all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(seen, seen[1:]))


def test_an_exception_in_progress_stops_the_run(small_file):
    def stop(t, waiting, events):
        if t > 30:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        waitroom.run(small_file, progress=stop)
    with pytest.raises(waitroom.ScenarioError):
        waitroom.run(small_file, progress="often")


@pytest.mark.parametrize("replications", [1, 4])
def test_ctrl_c_stops_a_long_run_promptly(replications):
    import _thread
    # 30 million users a run (about 4 s alone); Ctrl-C after 0.3 s stops it (and every
    # replication running) at its next sample.
    s = waitroom.load(CLINIC).set("/arrivals/segments/0/duration_s", 1200000)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        waitroom.run(s, replications=replications, threads=2)
    assert time.monotonic() - started < 2.0
    timer.join()
    # Nothing is left half-done: the next run is the same as ever.
    small = waitroom.load(SMALL)
    assert waitroom.run(small).json == waitroom.run(small).json


def test_series_is_the_clis_series_file_in_long_format(small_file, tmp_path):
    out = tmp_path / "series.csv"
    code, _, err = cli("run", small_file, "--seed", "3", "--quiet", "--series", str(out))
    assert code == 0, err
    wide = pd.read_csv(out)
    long = waitroom.run(small_file, seed=3).series
    assert list(long.columns) == ["t_s", "variable", "value"]
    assert list(dict.fromkeys(long["variable"])) == \
        ["length", "waiting_vip", "waiting_normal", "released_since_previous"]
    back = long.pivot(index="t_s", columns="variable", values="value")[wide.columns[1:]]
    assert (back.to_numpy() == wide.set_index("t_s").to_numpy()).all()
    with pytest.raises(waitroom.ScenarioError, match="single run"):
        waitroom.run(small_file, replications=2).series


def test_compare_is_the_clis_compare(small_file):
    code, out, err = cli("compare", small_file, "--variant", "big:/release/batch=8",
                         "--variant", "two:/release/batch=5,/classes/0/offset_ms=0",
                         "--replications", "3", "--seed", "2", "--format", "json")
    assert code == 0, err
    c = waitroom.compare(small_file, {"big": {"/release/batch": 8},
                                      "two": {"/release/batch": 5, "/classes/0/offset_ms": 0}},
                         seed=2, replications=3, threads=2)
    assert c.json == out
    code, out, _ = cli("compare", small_file, "--variant", "big:/release/batch=8",
                       "--variant", "two:/release/batch=5,/classes/0/offset_ms=0",
                       "--replications", "3", "--seed", "2", "--format", "csv")
    pd.testing.assert_frame_equal(c.table, pd.read_csv(__import__("io").StringIO(out)))
    assert set(c.table["variant"]) == {"base", "big", "two"}


@pytest.mark.parametrize("variants", [{}, {"base": {"/release/batch": 8}},
                                      {"big": {}}, {"big": {"/release/batch": 0}}])
def test_compare_refuses_bad_variants(small_file, variants):
    with pytest.raises(waitroom.ScenarioError):
        waitroom.compare(small_file, variants, replications=2)


def test_the_html_report_is_the_clis_and_shows_inline(small_file, tmp_path):
    for extra in ([], ["--replications", "3"]):
        page = tmp_path / "report.html"
        code, _, err = cli("run", small_file, "--seed", "3", "--quiet", "--html", str(page), *extra)
        assert code == 0, err
        r = waitroom.run(small_file, seed=3, replications=3 if extra else 1)
        assert r.html() == page.read_text()
    inline = r._repr_html_()
    assert inline.startswith("<iframe srcdoc=\"") and "&lt;html" in inline.lower()
    assert "<script" not in inline  # escaped into the iframe's own document


def test_histogram_counts_every_released_wait(small_file):
    r = waitroom.run(small_file, seed=3)
    for cls in ("vip", "normal"):
        h = r.histogram(cls)
        block = next(c for c in r.data["classes"] if c["name"] == cls)
        assert h["count"].sum() == block["released"]
        assert (h["lower_s"] < h["upper_s"]).all() and h["lower_s"].is_monotonic_increasing
        # The mean of the buckets' middles is the mean wait to the buckets' width.
        middle = ((h["lower_s"] + h["upper_s"]) / 2 * h["count"]).sum() / h["count"].sum()
        assert abs(middle - block["wait_s"]["mean"]) <= 0.0079 * block["wait_s"]["max"]
    assert r.histogram()["count"].sum() == r.data["overall"]["released"]
    reps = waitroom.run(small_file, replications=3)
    assert reps.histogram("vip")["count"].sum() == \
        reps.data["classes"][0]["pooled"]["released"]
    with pytest.raises(waitroom.ScenarioError, match="expected a class of the scenario"):
        r.histogram("gold")


def test_estimate_is_the_clis_estimate():
    mm1 = os.path.join(SOURCE, "scenarios", "priority_mm1.json")
    code, out, err = cli("estimate", mm1, "--format", "json", "--replications", "3", "--seed", "2")
    assert code == 0, err
    e = waitroom.estimate(mm1, seed=2, replications=3, threads=2)
    assert e.json == out
    assert e.model and e.reason is None
    assert list(e.rows.columns) == ["name", "closed_form", "estimate", "ci_low", "ci_high",
                                    "inside"]
    assert (e.rows["ci_low"] <= e.rows["estimate"]).all()
    assert list(e.rows["name"]) == [r["name"] for r in e.data["rows"]]
    with pytest.raises(waitroom.ScenarioError, match="from 2"):
        waitroom.estimate(mm1, replications=1)


def _leaves(doc, at=""):
    if isinstance(doc, dict):
        for k, v in doc.items():
            if not k.startswith("$"):
                yield from _leaves(v, at + "/" + k.replace("~", "~0").replace("/", "~1"))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, "{}/{}".format(at, i))
    else:
        yield at


def test_every_leaf_mutated_is_judged_as_the_cli_judges_it():
    # Table-driven over the shipped scenarios: each leaf set to -1, a string and a list, by
    # `waitroom validate --set` and by the module. What the CLI refuses (exit 2) the module
    # refuses with the same message; what it takes, the module takes.
    cases = []
    for name in ("clinic.json", "concert_polling.json", "flash_sale_stock.json"):
        path = os.path.join(SOURCE, "scenarios", name)
        with open(path) as f:
            doc = json.load(f)
        for pointer in _leaves(doc):
            for value in ("-1", '"x"', "[]"):
                cases.append((path, pointer, value))
    assert len(cases) > 300  # 354 when written
    refused = 0
    for path, pointer, value in cases:
        code, _, err = cli("validate", path, "--set", pointer + "=" + value)
        assert code in (0, 2), (pointer, value, err)
        try:
            waitroom.load(path).set(pointer, json.loads(value))
            got = None
        except waitroom.ScenarioError as e:
            got = "waitroom: " + str(e)
        if code == 2:
            refused += 1
            assert got == err.strip(), (pointer, value)
        else:
            assert got is None, (pointer, value, got)
    assert refused > 300  # 346 of them refused when written


# SMALL with an SLA on the mean waits: it holds from a batch of 6 (30/s released against 40/s
# arriving, patience keeping the queue short), not at 4.
PLANNED = dict(SMALL, name="planned", sla={"confidence": 0.95, "replications": 3, "targets": [
    {"class": "vip", "metric": "mean_wait_s", "max": 15},
    {"class": "normal", "metric": "mean_wait_s", "max": 40}]})


@pytest.fixture
def planned_file(tmp_path):
    return written(tmp_path, PLANNED)


def test_sweep_is_the_clis_sweep(small_file, tmp_path):
    csv = tmp_path / "sweep.csv"
    code, out, err = cli("sweep", small_file, "--vary", "/release/batch=5:7", "--vary",
                         "/classes/0/offset_ms=0:20000:10000", "--replications", "3", "--seed",
                         "2", "--format", "json", "--csv", str(csv), "--quiet")
    assert code == 0, err
    s = waitroom.sweep(small_file, {"/release/batch": "5:7",
                                    "/classes/0/offset_ms": [0, 10000, 20000]},
                       replications=3, seed=2, threads=2)
    assert s.json == out
    pd.testing.assert_frame_equal(s.table, pd.read_csv(csv))
    assert len(s.data["points"]) == 9
    code, text, _ = cli("sweep", small_file, "--vary", "/release/batch=5:7", "--vary",
                        "/classes/0/offset_ms=0:20000:10000", "--replications", "3", "--seed",
                        "2", "--quiet")
    assert str(s) == text
    # The same grid on one thread: the same bytes.
    assert waitroom.sweep(small_file, {"/release/batch": "5:7",
                                       "/classes/0/offset_ms": [0, 10000, 20000]},
                          replications=3, seed=2, threads=1).json == out


def test_a_plan_is_the_clis_plan(planned_file, tmp_path):
    csv = tmp_path / "plan.csv"
    code, out, err = cli("plan", planned_file, "--knob", "/release/batch", "--range", "2:8:2",
                         "--format", "json", "--csv", str(csv), "--quiet")
    assert code == 0, err
    p = waitroom.plan(planned_file, {"/release/batch": "2:8:2"}, threads=2)
    assert p.json == out
    pd.testing.assert_frame_equal(p.table, pd.read_csv(csv))
    assert p.feasible == [v["values"]["/release/batch"] for v in p.data["points"]
                          if v["sla_holds"]]
    assert p.feasible == [6, 8] and p.least is None
    code, text, _ = cli("plan", planned_file, "--knob", "/release/batch", "--range", "2:8:2",
                        "--quiet")
    assert str(p) == text


def test_a_plan_with_ties_search_and_two_knobs_is_the_clis(planned_file):
    for args, kwargs in [
        (["--knob", "/release/batch", "--range", "6:14", "--search"],
         dict(knobs={"/release/batch": "6:14"}, search=True)),
        (["--knob", "/release/batch", "--range", "6:10:2", "--tie", "/classes/0/offset_ms=1000*x"],
         dict(knobs={"/release/batch": "6:10:2"}, ties={"/classes/0/offset_ms": "1000*x"})),
        (["--knob", "/release/batch", "--range", "7:9", "--knob", "/classes/0/offset_ms",
          "--range", "0:20000:20000", "--replications", "2"],
         dict(knobs={"/release/batch": "7:9", "/classes/0/offset_ms": "0:20000:20000"},
              replications=2)),
    ]:
        code, out, err = cli("plan", planned_file, *args, "--seed", "6", "--format", "json",
                             "--quiet")
        assert code == 0, (args, err)
        assert waitroom.plan(planned_file, seed=6, **kwargs).json == out, args


def test_a_plan_past_its_grid_finds_the_clis_least_capacity(tmp_path):
    # In users/s: a rate from 10 to 20 fails everywhere; 30/s (a batch of 6) holds.
    rated = written(tmp_path, dict(PLANNED, name="rated", release={
        "mode": "tick", "interval_ms": 200, "rate_per_s": 10}))
    code, out, err = cli("plan", rated, "--knob", "/release/rate_per_s", "--range", "10:20:5",
                         "--format", "json", "--quiet")
    assert code == 0, err
    p = waitroom.plan(rated, {"/release/rate_per_s": "10:20:5"})
    assert p.json == out
    assert p.feasible[0] == p.least and 20 < p.least <= 30  # past the grid, probes that hold
    assert p.data["past_grid"]["found"] is True
    assert "needs at least" in str(p)


@pytest.mark.parametrize("call, where", [
    (lambda f: waitroom.sweep(f, {"/release/batch": "9:3"}), "vary /release/batch"),
    (lambda f: waitroom.sweep(f, {"/release/batch": [5, float("nan")]}), "vary /release/batch"),
    (lambda f: waitroom.sweep(f, {"release/batch": "3:9"}), "vary release/batch"),
    (lambda f: waitroom.sweep(f, {}), "vary"),
    (lambda f: waitroom.sweep(f, {"/release/batch": "3:9"}, replications=1), "replications"),
    (lambda f: waitroom.sweep(f, {"/release/batch": ["a"]}), "vary /release/batch"),
    (lambda f: waitroom.sweep(f, {"/release/batch": ["5", "6"]}), "vary /release/batch"),
    (lambda f: waitroom.plan(f, {"/release/batch": [6, 4, 8]}), "knobs /release/batch"),
    (lambda f: waitroom.plan(f, {"/release/batch": [4, 4]}), "knobs /release/batch"),
    (lambda f: waitroom.plan(f, {"/release/batch": "3:9"}, ties={"/x": "x^2"}), "ties /x"),
    (lambda f: waitroom.plan(f, {"/release/batch": "3:9", "/release/interval_ms": "100:200:100"},
                             search=True), "search"),
    (lambda f: waitroom.plan(f, {"/a": "1:2", "/b": "1:2", "/c": "1:2"}), "knobs"),
])
def test_bad_grids_raise(planned_file, call, where):
    with pytest.raises(waitroom.ScenarioError) as e:
        call(planned_file)
    assert e.value.where.startswith(where), e.value.where


def test_a_bad_grid_value_is_refused_as_the_cli_refuses_it(planned_file):
    code, _, err = cli("plan", planned_file, "--knob", "/release/batch", "--range", "0:4:2",
                       "--quiet")
    assert code == 2
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.plan(planned_file, {"/release/batch": "0:4:2"})
    # The CLI names its flag, the module its argument; the point, expectation and finding agree.
    assert err.strip().endswith(str(e.value).split(" at grid point ", 1)[1])
    code, _, err = cli("plan", planned_file, "--knob", "/release/batch", "--range", "4:x",
                       "--quiet")
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.plan(planned_file, {"/release/batch": "4:x"})
    assert err.strip().split(": expected ", 1)[1] == str(e.value).split(": expected ", 1)[1]


def test_a_plan_without_an_sla_raises_the_clis_message(small_file):
    code, _, err = cli("plan", small_file, "--knob", "/release/batch", "--range", "4:8",
                       "--quiet")
    assert code == 2
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.plan(small_file, {"/release/batch": "4:8"})
    assert "waitroom: " + str(e.value) == err.strip()


def interrupted_promptly(call):
    """Ctrl-C (interrupt_main) 0.3 s into `call` raises KeyboardInterrupt within 3 s."""
    import _thread
    timer = threading.Timer(0.3, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        call()
    assert time.monotonic() - started < 3.0
    timer.join()


def test_ctrl_c_stops_a_long_sweep_promptly():
    # 40 points of an hour of the clinic, 4 replications each (about 10 s): the stop reaches
    # the replications running.
    s = waitroom.load(CLINIC).set("/arrivals/segments/0/duration_s", 3600)
    interrupted_promptly(
        lambda: waitroom.sweep(s, {"/release/batch": "5:44"}, replications=4, threads=2))


def test_a_seed_axis_gives_each_point_its_own_seed(small_file):
    code, out, err = cli("sweep", small_file, "--vary", "/seed=1:3", "--replications", "2",
                         "--format", "json", "--quiet")
    assert code == 0, err
    s = waitroom.sweep(small_file, {"/seed": "1:3"}, replications=2)
    assert s.json == out
    means = s.table.query("metric == 'mean_wait_s' and `class` == 'all'")["estimate"]
    assert means.nunique() == 3  # three seeds, three different samples


def test_a_bisected_plans_feasible_values_are_its_interval():
    # M/M/4 (docs/planning.md): Erlang C's first guess, then bisection; the values it skipped
    # inside the interval it found are feasible too.
    mmc = waitroom.load(MMC).set("/run/horizon_s", 20000)
    code, text, err = cli("plan", MMC, "--set", "/run/horizon_s=20000", "--knob",
                          "/arrivals/rate_per_s", "--range", "0.5:3.9:0.2", "--search", "--quiet")
    assert code == 0, err
    p = waitroom.plan(mmc, {"/arrivals/rate_per_s": "0.5:3.9:0.2"}, search=True)
    assert str(p) == text
    assert len(p.data["points"]) < 18  # simulated: fewer than the grid's values
    found = text.split("every SLA holds for /arrivals/rate_per_s from ", 1)[1].split(" (")[0]
    low, high = (float(x) for x in found.split(" to "))
    grid = [round(0.5 + 0.2 * i, 9) for i in range(18)]
    assert p.feasible == [v for v in grid if low <= v <= high]


def test_ctrl_c_stops_a_bisecting_plan_promptly():
    # The M/M/4 for 2,000,000 s a value (several seconds); the bisection calls nothing back,
    # so the stop reaches the replications themselves.
    s = waitroom.load(MMC).set("/run/horizon_s", 2000000)
    interrupted_promptly(lambda: waitroom.plan(s, {"/arrivals/rate_per_s": "0.5:3.9:0.1"},
                                               search=True, threads=2))


def test_the_seed_bound_is_the_clis(small_file):
    code, _, err = cli("run", small_file, "--seed", str(2 ** 53 + 1), "--quiet")
    assert code == 2
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.run(small_file, seed=2 ** 53 + 1)
    assert e.value.expected in err and e.value.found in err


def test_a_name_that_is_not_a_string_is_refused():
    for doc, name in [(dict(SMALL, name=5), None), (SMALL, 3)]:
        with pytest.raises(waitroom.ScenarioError) as e:
            waitroom.load(doc, name=name)
        assert e.value.where == "name"


def test_a_single_class_named_all_has_one_row():
    # The class and everyone are the same users: the CLI's CSV lists them twice, waits once.
    mmc = waitroom.load(MMC).set("/run/horizon_s", 2000)
    assert list(waitroom.run(mmc).waits.index) == ["all"]
    assert list(waitroom.run(mmc, replications=2).waits.index) == ["all"]


def test_a_refused_variant_is_named(small_file):
    with pytest.raises(waitroom.ScenarioError) as e:
        waitroom.compare(small_file, {"b5": {"/release/batch": 5}, "b0": {"/release/batch": 0}},
                         replications=2)
    assert str(e.value).startswith("variants/b0: ") and e.value.pointer == "/release/batch"
    assert e.value.found == "a number (0)"
