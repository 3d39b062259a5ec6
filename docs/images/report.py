#!/usr/bin/env python3
"""Makes docs/images/report.png, the README's picture: the latency section of the report of the README's
tour (its two runs, measured afresh on this machine), drawn by headless Chromium as the report's test
draws it (./setup.sh installs chromium, chromium-driver and selenium into .venv/).

    .venv/bin/python docs/images/report.py

pngquant (apt-get install pngquant), when present, brings the file down to a few tens of KB.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver

REPO = Path(__file__).resolve().parents[2]
IMAGE = REPO / "docs" / "images" / "report.png"
TOUR = [
    ["run", "lat.wakeup", "--label", "fifo", "--json", "fifo.json"],
    ["run", "lat.wakeup", "--label", "other", "--policy", "other"],
    ["report", "fifo.json", "last", "-o", "report.html"],
]
SECTION = "metric-lat.wakeup"  # the report's section of the metric: its distribution plot first
WINDOW = (960, 640)


def main() -> int:
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "RTSCOPE_DB": f"{work}/results.sqlite", "NO_COLOR": "1"}
        for args in TOUR:
            ran = subprocess.run(
                [REPO / "rtscope", *args], check=False, cwd=work, env=env, capture_output=True, text=True
            )
            if ran.returncode != 0:
                print(f"report.py: rtscope {' '.join(args)}: {ran.stderr.strip()}", file=sys.stderr)
                return 1
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            f"--user-data-dir={work}/profile",
        ):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=webdriver.ChromeService("/usr/bin/chromedriver"), options=options)
        try:
            driver.get(Path(work, "report.html").as_uri())
            driver.execute_script(f"document.getElementById('{SECTION}').scrollIntoView()")
            shot = Path(work, "report.png")
            driver.save_screenshot(str(shot))
        finally:
            driver.quit()
        if shutil.which("pngquant"):
            subprocess.run(["pngquant", "--force", "--quality", "60-90", "--output", shot, shot], check=True)
        shutil.copyfile(shot, IMAGE)
    print(f"{IMAGE.relative_to(REPO)}: {IMAGE.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
