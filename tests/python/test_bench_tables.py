"""scripts/bench_tables.py's floor analysis (issue 13: every case below 1.2x CV-CUDA either has
room left or a copy floor that rules 1.2x out): the verdicts on hand-computed cases."""

import json
import pathlib
import runpy

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench_tables.py"
tables = runpy.run_path(str(SCRIPT))


def case(ours_ms, cv_ms, mb):
    return {"op": "op", "input": "x", "ours_ms": ours_ms, "cv_ms": cv_ms, "ours_gbs": mb / ours_ms,
            "speedup_cv": cv_ms / ours_ms, "tv_ms": 1.0, "speedup": 1.0 / ours_ms, "ours_of_copy": 0.5,
            "tv_of_copy": 0.1, "cv_of_copy": 0.5}


def test_floor_verdicts():
    copy_gbs = 4000.0  # 800 MB take 0.2 ms
    mb, floor, need, verdict = tables["floor_verdict"](case(0.21, 0.205, 800.0), copy_gbs)
    assert abs(mb - 800.0) < 1e-9 and abs(floor - 0.2) < 1e-12 and abs(need - 0.205 / 1.2) < 1e-12
    assert verdict.startswith("below the copy floor") and "98 %" in verdict
    # Room left: 1.2x of 0.6 ms is 0.5 ms, above the 0.2 ms floor; 0.7 ms must become 1.40x faster.
    assert tables["floor_verdict"](case(0.7, 0.6, 800.0), copy_gbs)[3] == "possible (needs 1.40x)"
    # A library faster than the copy would move the count's bytes: no floor from the count.
    assert tables["floor_verdict"](case(0.19, 0.25, 800.0), copy_gbs)[3].startswith("no floor")


def test_floor_table_lists_only_cases_below_the_target(tmp_path, capsys):
    cases = [dict(case(0.21, 0.205, 800.0), op="flip"), dict(case(0.5, 0.7, 800.0), op="hue")]
    path = tmp_path / "bench_tv.json"
    path.write_text(json.dumps({"copy_gbs": 4000.0, "cases": cases, "overhead": {}}))
    tables["floors"](str(path))
    out = capsys.readouterr().out
    assert "| flip |" in out and "| hue |" not in out  # hue is 1.4x ahead already
