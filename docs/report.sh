#!/usr/bin/env bash
# Regenerates docs/report.png, the screenshot of `workbench report --html` that README.md shows,
# from the current build: configs/sim.toml with the disks slowed at 4 disks in the simulated truth
# only (so the model mismatches), an 8-sample surface, two probes run by the agent, the report
# opened in headless Chromium at its surface section.
#   bash docs/report.sh [BUILD_DIR]   (default build/; needs chromium, chromium-driver,
#                                      python3-selenium: bash dev/setup.sh test installs them)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
wb=$build/controller/workbench
[ -x "$wb" ] || { echo "report.sh: $wb is missing: build it first" >&2; exit 2; }
work=$(mktemp -d /tmp/wb-report-shot-XXXXXX)
trap 'rm -rf "$work"' EXIT
sed '/^\[\[sim.center\]\]/,/^\[\[model.center\]\]/ s/^service_ms = 15$/service_ms = "15 + 15 * max(0, min(1, {disks} - 3))"/' \
  "$root/configs/sim.toml" >"$work/sim.toml"
grep -q '{disks} - 3' "$work/sim.toml" || { echo "report.sh: could not plant the deviation" >&2; exit 1; }
args=(--config "$work/sim.toml" --store "$work/wb.db")
"$wb" map-surface "${args[@]}" --factors disks,threads --points 8 >/dev/null 2>&1
"$wb" agent "${args[@]}" --once --max 2 >/dev/null 2>&1
"$wb" report "${args[@]}" --html "$work/report.html"
/usr/bin/python3 - "$work" "$root/docs/report.png" <<'PY'
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

work, out = sys.argv[1], sys.argv[2]
options = Options()
options.binary_location = "/usr/bin/chromium"
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
             "--window-size=1360,1400", f"--user-data-dir={work}/chromium"):
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(f"file://{work}/report.html")
    driver.execute_script("document.getElementById('surfaces').scrollIntoView()")
    time.sleep(0.5)  # let the images scrolled into view paint
    driver.save_screenshot(out)
finally:
    driver.quit()
PY
echo "report.sh: wrote $root/docs/report.png"
