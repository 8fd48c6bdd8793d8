#!/usr/bin/python3
"""workbench report --html in headless Chromium: every plot of a small simulated surface with a
mismatch and probes is drawn (a non-blank image where each plot is), the page loads nothing from
outside the file, and the browser logs no error.

Usage: report_html_test.py WORKBENCH SOURCE_DIR
Needs Debian's chromium, chromium-driver, python3-selenium and python3-pil (dev/setup.sh)."""
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

# The disks slow from 15 to 30 ms at 4 disks in the simulated truth, not in the model: the surface
# then shows mismatches, and they schedule probes.
DEVIATION = 'service_ms = "15 + 15 * max(0, min(1, {disks} - 3))"'

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def workbench(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        sys.exit(f"workbench {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r


def deviating_config(source_dir, path):
    text = open(os.path.join(source_dir, "configs", "sim.toml")).read()
    disk = text.index('[[sim.center]]\nname = "disk"')
    at = text.index("service_ms = 15\n", disk)
    assert text.index("[[model.center]]") > at, "the [model] must keep the 15 ms disk"
    open(path, "w").write(text[:at] + DEVIATION + text[at + len("service_ms = 15"):])


def add_search_where_nothing_completed(store):
    """A search whose every trial completed nothing (a load far past saturation): the report must
    draw it without a response time, not fail or show 0 ms. Copied from search 1, as a fixture."""
    db = sqlite3.connect(store)
    new = db.execute("SELECT max(id) + 1 FROM searches").fetchone()[0]
    cols = [r[1] for r in db.execute("PRAGMA table_info(searches)")]
    values = {"id": "?", "status": "'not-found'", "peak_rate": "NULL", "peak_low": "NULL", "peak_high": "NULL",
              "mean_ms": "NULL", "ci_low_ms": "NULL", "ci_high_ms": "NULL", "trials": "2"}
    db.execute(f"INSERT INTO searches ({', '.join(cols)}) SELECT {', '.join(values.get(c, c) for c in cols)} "
               "FROM searches WHERE id = 1", (new,))
    for index, rate in enumerate((5000.0, 2500.0)):
        db.execute("INSERT INTO loads (search_id, load_index, rate, runlength_s, trials, saturated, verdict) "
                   "VALUES (?, ?, ?, 60, 1, 1, 'above')", (new, index, rate))
        db.execute("INSERT INTO trials (search_id, load_index, rate, runlength_s, achieved_rate, sent, completed, "
                   "errors, mean_ms, p50_ms, p90_ms, p95_ms, p99_ms, max_ms, cost_s, created_at) "
                   "VALUES (?, ?, ?, 60, 0, 1000, 0, 1000, 0, 0, 0, 0, 0, 0, 70, "
                   "strftime('%Y-%m-%dT%H:%M:%fZ','now'))", (new, index, rate))
    db.commit()
    db.close()
    return new


def drawn(png):
    """Share of pixels that differ from the background, and the number of distinct colours."""
    im = Image.open(io.BytesIO(png)).convert("RGB")
    counts = im.getcolors(im.width * im.height)  # [(count, colour)]
    background = max(counts)[1]
    differ = sum(n for n, c in counts if sum(abs(a - b) for a, b in zip(c, background)) > 60)
    return differ / (im.width * im.height), len(counts)


def main():
    binary, source_dir = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="wb-report-html-")
    driver = None
    try:
        config, store = os.path.join(work, "sim.toml"), os.path.join(work, "wb.db")
        html = os.path.join(work, "report.html")
        deviating_config(source_dir, config)
        workbench(binary, "map-surface", "--config", config, "--store", store, "--factors", "disks,threads",
                  "--points", "8")
        workbench(binary, "agent", "--config", config, "--store", store, "--once", "--max", "2")
        dead = add_search_where_nothing_completed(store)

        # Without the drawing programs (gnuplot, Graphviz): one line that names the missing one,
        # exit 1, and no file (not even half of one).
        r = subprocess.run([binary, "report", "--config", config, "--store", store, "--html", html],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "PATH": "/nonexistent"})
        check(r.returncode == 1, f"without gnuplot: exit 1, not {r.returncode}")
        check(len(r.stderr.strip().splitlines()) == 1 and "not installed (Debian package" in r.stderr,
              f"without gnuplot: one line naming it, not {r.stderr!r}")
        check(not os.path.exists(html)
              and not any(f.startswith("report.html") for f in os.listdir(work)),
              f"without gnuplot: no report file: {os.listdir(work)}")

        workbench(binary, "report", "--config", config, "--store", store, "--html", html)
        data = json.loads(workbench(binary, "report", "--config", config, "--store", store, "--json").stdout)
        dead_loads = next(s["loads"] for s in data["searches"] if s["search_id"] == dead)
        check(len(dead_loads) == 2 and all(l["mean_ms"] is None and l["metric_ms"] is None for l in dead_loads),
              f"loads where nothing completed have no response time, not 0 ms: {dead_loads}")

        # The plots the data calls for, by the ids the report gives them.
        expected = {f"plot-search-{s['search_id']}" for s in data["searches"] if s["loads"]}
        # A sample's curve is named after its first search with loads, and drawn when some load of
        # the sample has a response time.
        first_of_sample, timed = {}, set()
        for s in data["searches"]:
            if s["loads"]:
                key = json.dumps(s["sample"], sort_keys=True)
                first_of_sample.setdefault(key, s["search_id"])
                if any(l["mean_ms"] is not None for l in s["loads"]):
                    timed.add(key)
        expected |= {f"plot-latency-{i}" for k, i in first_of_sample.items() if k in timed}
        expected |= {f"plot-surface-{s['surface_id']}" for s in data["surfaces"] if s["model"]}
        check(any(s["within_tolerance"] is False for s in data["searches"]), "the store holds a mismatch")
        check(len(data["mismatches"]) > 0, "mismatches are recorded")
        check(any(p["status"] == "done" for p in data["probes"]), "a probe ran")
        check(data["tree"] is not None, "a Z-CART tree is stored")
        expected |= {"plot-expectation", "plot-tree", "plot-cost"}

        options = Options()
        options.binary_location = "/usr/bin/chromium"
        # As root on a closed network (the machine notes): no sandbox, no background connections.
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--window-size=1400,1000", f"--user-data-dir={work}/chromium"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.get("file://" + html)

        images = driver.find_elements(By.CSS_SELECTOR, "img.plot")
        ids = {img.get_attribute("id") for img in images}
        check(ids == expected, f"plots on the page {sorted(ids)} are the ones the data calls for {sorted(expected)}")
        for img in images:
            name = img.get_attribute("id")
            natural = driver.execute_script("return arguments[0].complete ? arguments[0].naturalWidth : 0", img)
            check(natural > 0, f"{name}: the browser decoded the image")
            driver.execute_script("arguments[0].scrollIntoView()", img)
            check(img.size["width"] >= 200 and img.size["height"] >= 150, f"{name}: shown at a readable size")
            share, colours = drawn(img.screenshot_as_png)
            # Axes, labels and data cover a few percent of a plot at least; a blank or failed
            # image is one colour.
            check(share > 0.02 and colours > 8, f"{name}: drawn ({share:.1%} non-background, {colours} colours)")

        resources = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)")
        outside = [r for r in resources if not r.startswith("data:")]
        check(not outside, f"nothing loaded from outside the file: {outside}")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        check(not errors, f"no console errors: {errors}")
        print(f"{len(images)} plots drawn; {len(failures)} failures")
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
