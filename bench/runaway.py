"""Spreadsheet engine bounds (issue 21). Run through bench/runaway.sh, which starts a release
server and writes BENCH_STATIC and BENCH_OFFSET: the engine's bytes of a workbook holding
=COUNTBLANK(B1:XFD1048576) (17 billion cells, refused before anything is computed) and
=COUNTBLANK(OFFSET(B1,0,0,1048576,16000)) (a range as large, built at evaluation time: it saves,
and the worker is killed at the deadline, SPREADSHEET_TIMEOUT_SECS).

1. The runaway formulas: time to the answer of a save, an import (an XLSX written by openpyxl
   with the formula), a CSV and an XLSX export and a range read; the server's resident memory
   (VmRSS) before, its peak and the peak of the engine workers (`backend spreadsheet-engine`
   children of the server, summed), sampled every 50 ms from /proc, and after.
2. Crafted imports: 2.2 million <c> cells (~55 MiB of sheet XML in ~5 MiB of zip); as many empty
   shared strings as fit in the 64 MiB the zip may expand to; 70 million of them (1 GiB of XML
   in a 2 MiB zip: within the 8 MiB upload limit, past the expansion limit).
3. Isolation: tenant A runs the OFFSET export from ATTACKERS clients in a loop for ATTACK_SECS;
   meanwhile tenant B exports its report (XLSX, 1,000 rows x 4 columns) and a small spreadsheet
   (CSV, an engine job) one after another; against a baseline of the same just before.
"""

import base64
import io
import json
import os
import threading
import time
import urllib.error
import urllib.request
import zipfile

from common import BASE, call, ms, pct, tenant_with_writer

PID = int(os.environ["BENCH_PID"])
DEADLINE = float(os.environ.get("SPREADSHEET_TIMEOUT_SECS", "5"))
ATTACKERS = int(os.environ.get("ATTACKERS", "4"))
ATTACK_SECS = float(os.environ.get("ATTACK_SECS", "30"))
BASELINE_SECS = float(os.environ.get("BASELINE_SECS", "15"))
MAX_REQUESTS = int(os.environ.get("MAX_REQUESTS", "2000"))  # per measuring loop, a bound besides the time
CELLS = int(os.environ.get("CELLS", "2200000"))
HUGE_STRINGS = int(os.environ.get("HUGE_STRINGS", "70000000"))
REPEATS = int(os.environ.get("REPEATS", "10"))
MIB = 1024 * 1024


# --- HTTP ---------------------------------------------------------------------------------------

def request(method, path, token, body=None, content_type="application/json", timeout=120):
    """(status, body bytes, seconds): errors are answers too."""
    req = urllib.request.Request(BASE + path, data=body, method=method)
    req.add_header("content-type", content_type)
    req.add_header("authorization", f"Bearer {token}")
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read(), time.perf_counter() - t
    except urllib.error.HTTPError as e:
        return e.code, e.read(), time.perf_counter() - t


def put_json(path, token, body):
    return request("PUT", path, token, json.dumps(body).encode())


def import_xlsx(dept, token, data, name="runaway"):
    boundary = "benchboundary7d3f"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}.xlsx\"\r\n"
            "Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return request("POST", f"/api/v1/departments/{dept}/spreadsheets/import", token, body, f"multipart/form-data; boundary={boundary}")


def why(status, body):
    """The status and, for a refusal, its code, fields and message, in one line."""
    try:
        err = json.loads(body)
    except ValueError:
        return f"{status}"
    if status < 400:
        return f"{status}"
    fields = err.get("fields") or err.get("details", {}).get("fields")
    return f"{status} {err.get('code', '')} {json.dumps(fields) if fields else ''} {err.get('message', '')!r}".replace("  ", " ")


# --- memory -------------------------------------------------------------------------------------

def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def workers():
    """The server's `spreadsheet-engine` children."""
    pids = []
    try:
        for task in os.listdir(f"/proc/{PID}/task"):
            with open(f"/proc/{PID}/task/{task}/children") as f:
                pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    out = []
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if b"spreadsheet-engine" in f.read():
                    out.append(p)
        except OSError:
            pass
    return out


class Sampler:
    """Every 50 ms: the server's RSS, the summed RSS of its engine workers, and how many run."""

    def __init__(self):
        self.samples = []  # (t, server KiB, workers KiB, workers)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            ws = workers()
            self.samples.append((time.perf_counter(), rss_kib(PID), sum(rss_kib(w) for w in ws), len(ws)))
            time.sleep(0.05)

    def mark(self):
        return len(self.samples)

    def peaks(self, since):
        window = self.samples[since:] or [(0, 0, 0, 0)]
        return (max(s[1] for s in window) / 1024, max(s[2] for s in window) / 1024, max(s[1] + s[2] for s in window) / 1024,
                max(s[3] for s in window))

    def close(self):
        self.stop.set()
        self.thread.join()


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


def measured(sampler, label, fn):
    """Runs fn (a request) with the memory around it; returns one table row."""
    before = rss_kib(PID)
    mark = sampler.mark()
    status, body, secs = fn()
    time.sleep(0.3)  # let the sampler see the end, and the killed worker be reaped
    server_peak, worker_peak, total_peak, most = sampler.peaks(mark)
    after, left = rss_kib(PID), len(workers())
    print(f"| {label} | {why(status, body)} | {secs:.2f} s | {mib(before)} | {server_peak:.1f} MiB | "
          f"{worker_peak:.1f} MiB ({most} at once) | {total_peak:.1f} MiB | {mib(after)} | {left} |", flush=True)
    return status, body, secs


# --- files --------------------------------------------------------------------------------------

CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                 '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                 '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                 '<Default Extension="xml" ContentType="application/xml"/>'
                 '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
                 '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                 '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
                 '</Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        '</Relationships>')
WORKBOOK = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>')
WORKBOOK_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                 '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                 '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
                 '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
                 '</Relationships>')
SHEET_HEAD = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
SHEET_TAIL = '</sheetData></worksheet>'
STRINGS_HEAD = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{n}" uniqueCount="{n}">')


def column(n):
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def xlsx(sheet_chunks, strings_chunks):
    """A minimal XLSX (zip, deflated) whose sheet and shared strings are written chunk by chunk;
    returns the file and the bytes each part expands to."""
    out = io.BytesIO()
    sizes = {}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, text in [("[Content_Types].xml", CONTENT_TYPES), ("_rels/.rels", RELS), ("xl/workbook.xml", WORKBOOK),
                           ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS)]:
            z.writestr(name, text)
            sizes[name] = len(text.encode())
        for name, chunks in [("xl/worksheets/sheet1.xml", sheet_chunks), ("xl/sharedStrings.xml", strings_chunks)]:
            with z.open(name, "w", force_zip64=True) as part:
                n = 0
                for chunk in chunks:
                    b = chunk.encode()
                    part.write(b)
                    n += len(b)
                sizes[name] = n
    return out.getvalue(), sizes


def many_cells(cells, per_row=1000):
    """~26 bytes of XML a cell: numbers that vary (so that the zip is ~10x, not 1000x)."""
    yield SHEET_HEAD
    x = 12345
    for r in range(1, cells // per_row + 1):
        row = [f'<row r="{r}">']
        for c in range(1, per_row + 1):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            row.append(f'<c r="{column(c)}{r}"><v>{x % 10}</v></c>')
        row.append("</row>")
        yield "".join(row)
    yield SHEET_TAIL


def empty_strings(n):
    yield STRINGS_HEAD.format(n=n)
    block = "<si><t></t></si>" * 10_000
    for _ in range(n // 10_000):
        yield block
    yield "<si><t></t></si>" * (n % 10_000)
    yield "</sst>"


def one_sheet():
    return [SHEET_HEAD, '<row r="1"><c r="A1"><v>1</v></c></row>', SHEET_TAIL]


def formula_xlsx(formula):
    import openpyxl
    wb = openpyxl.Workbook()
    wb.active["A1"] = formula
    wb.active["B1"] = 1
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


# --- the benchmark ------------------------------------------------------------------------------

def main():
    with open(os.environ["BENCH_STATIC"], "rb") as f:
        static = base64.b64encode(f.read()).decode()
    with open(os.environ["BENCH_OFFSET"], "rb") as f:
        offset = base64.b64encode(f.read()).decode()
    a = tenant_with_writer("runaway-a", role="DepartmentUser")
    b = tenant_with_writer("runaway-b", role="DepartmentUser")
    sampler = Sampler()

    def new_sheet(t, name):
        _, sheet = call("POST", f"/api/v1/departments/{t.finance}/spreadsheets", t.writer, {"name": name})
        return sheet["id"]

    print(f"load average at the start: {os.getloadavg()[0]:.1f} (1 min)")
    print(f"## 1. Runaway formulas (deadline {DEADLINE:g} s, one request at a time, server RSS sampled every 50 ms)")
    print("| request | answer | time | server RSS before | server peak | workers' peak | server + workers peak | server after | workers left |")
    print("|---|---|---|---|---|---|---|---|---|")
    static_sheet = new_sheet(a, "Static runaway")
    measured(sampler, "save `=COUNTBLANK(B1:XFD1048576)`", lambda: put_json(f"/api/v1/spreadsheets/{static_sheet}", a.writer, {"content": static, "version": 1}))
    measured(sampler, "import the same formula (openpyxl XLSX)", lambda: import_xlsx(a.finance, a.writer, formula_xlsx("=COUNTBLANK(B1:XFD1048576)")))
    offset_sheet = new_sheet(a, "Dynamic runaway")
    status, _, _ = measured(sampler, "save `=COUNTBLANK(OFFSET(B1,0,0,1048576,16000))`",
                            lambda: put_json(f"/api/v1/spreadsheets/{offset_sheet}", a.writer, {"content": offset, "version": 1}))
    if status != 200:
        raise SystemExit("the OFFSET workbook was not saved: the rest needs it")
    for label, path in [("its CSV export", "export?format=csv"), ("its XLSX export", "export?format=xlsx"), ("its range read A1:B3", "range?range=A1:B3")]:
        measured(sampler, label, lambda: request("GET", f"/api/v1/spreadsheets/{offset_sheet}/{path}", a.writer))
    measured(sampler, "import the OFFSET formula (openpyxl XLSX)",
             lambda: import_xlsx(a.finance, a.writer, formula_xlsx("=COUNTBLANK(OFFSET(B1,0,0,1048576,16000))")))
    # The client hangs up after 1 s: its worker should be gone at once, not at the deadline.
    seen = {}
    probe = threading.Timer(0.5, lambda: seen.update(running=len(workers())))
    probe.start()
    t = time.perf_counter()
    try:
        request("GET", f"/api/v1/spreadsheets/{offset_sheet}/export?format=csv", a.writer, timeout=1)
        print("   the export answered within 1 s (unexpected)")
    except (TimeoutError, OSError):
        hung_up = time.perf_counter() - t
        while workers() and time.perf_counter() - t < DEADLINE + 5:
            time.sleep(0.005)
        probe.join()
        print(f"   a client that hangs up after {hung_up:.2f} s (its CSV export's worker running: {seen.get('running')}): "
              f"no worker left {(time.perf_counter() - t - hung_up) * 1000:.0f} ms later")
    print()
    print("## 2. Crafted imports (refused by streaming counts before IronCalc parses)")
    t = time.perf_counter()
    cells_file, cells_sizes = xlsx(many_cells(CELLS), ["".join(empty_strings(0))])
    _, parts = xlsx(one_sheet(), empty_strings(0))
    n_strings = (64 * MIB - sum(parts.values()) - 32) // 16  # the most that expand to 64 MiB, the zip's limit
    strings_file, strings_sizes = xlsx(one_sheet(), empty_strings(n_strings))
    huge_file, huge_sizes = xlsx(one_sheet(), empty_strings(HUGE_STRINGS))  # past 64 MiB: a zip bomb too
    print(f"   (files written in {time.perf_counter() - t:.1f} s)")
    print("| file | answer | time | server RSS before | server peak | workers' peak | server + workers peak | server after | workers left |")
    print("|---|---|---|---|---|---|---|---|---|")
    measured(sampler, f"{CELLS:,} `<c>` cells, {cells_sizes['xl/worksheets/sheet1.xml'] / MIB:.1f} MiB of sheet XML, "
                      f"{len(cells_file) / MIB:.2f} MiB zip", lambda: import_xlsx(a.finance, a.writer, cells_file))
    measured(sampler, f"{n_strings:,} empty `<si><t></t></si>`, {strings_sizes['xl/sharedStrings.xml'] / MIB:.1f} MiB of XML, "
                      f"{len(strings_file) / 1024:.0f} KiB zip", lambda: import_xlsx(a.finance, a.writer, strings_file))
    measured(sampler, f"{HUGE_STRINGS:,} empty `<si><t></t></si>`, {huge_sizes['xl/sharedStrings.xml'] / MIB:.0f} MiB of XML, "
                      f"{len(huge_file) / MIB:.2f} MiB zip", lambda: import_xlsx(a.finance, a.writer, huge_file))
    after = []
    for _ in range(REPEATS):
        status, _, _ = import_xlsx(a.finance, a.writer, cells_file)
        after.append(f"{rss_kib(PID) / 1024:.1f}" if status == 400 else f"{status}!")
    print(f"   the 2.2 M-cell file {REPEATS} more times: server RSS after each, MiB: {', '.join(after)}")

    print()
    print(f"## 3. Another tenant while tenant A runs the OFFSET export from {ATTACKERS} clients for {ATTACK_SECS:g} s")
    table = {"columns": ["Month", "Revenue", "Costs", "Note"],
             "rows": [[f"Row {i}", (i * 7919) % 10000, (i * 104729 % 100000) / 100, "ok" if i % 3 else None] for i in range(1000)]}
    _, report = call("POST", f"/api/v1/departments/{b.finance}/reports", b.writer, {
        "title": "Quarter", "content": "x", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "data": table})
    _, small = import_xlsx(b.finance, b.writer, formula_xlsx("=SUM(B1:B10)"), "small")[:2]
    small = json.loads(small)["id"]

    def tenant_b(until, stop):
        """B's loop: a report XLSX export, then a spreadsheet CSV export, one after another."""
        reports, sheets, bad = [], [], []
        for _ in range(MAX_REQUESTS):
            if time.perf_counter() > until or stop():
                break
            for path, into in [(f"/api/v1/reports/{report['id']}/export?format=xlsx", reports), (f"/api/v1/spreadsheets/{small}/export?format=csv", sheets)]:
                status, body, secs = request("GET", path, b.writer)
                into.append(secs)
                if status != 200:
                    bad.append((path, why(status, body)))
        return reports, sheets, bad

    for _ in range(3):  # warm-up
        request("GET", f"/api/v1/reports/{report['id']}/export?format=xlsx", b.writer)
        request("GET", f"/api/v1/spreadsheets/{small}/export?format=csv", b.writer)
    mark = sampler.mark()
    base_reports, base_sheets, base_bad = tenant_b(time.perf_counter() + BASELINE_SECS, lambda: False)
    base_peaks = sampler.peaks(mark)

    attack = {"statuses": [], "times": []}
    lock = threading.Lock()
    end = time.perf_counter() + ATTACK_SECS

    def attacker():
        while time.perf_counter() < end:
            status, body, secs = request("GET", f"/api/v1/spreadsheets/{offset_sheet}/export?format=csv", a.writer)
            with lock:
                attack["statuses"].append(why(status, body) if status not in (400, 503) else status)
                attack["times"].append((status, secs))

    mark = sampler.mark()
    began = time.perf_counter()
    threads = [threading.Thread(target=attacker) for _ in range(ATTACKERS)]
    for th in threads:
        th.start()
    time.sleep(0.2)  # the first worker has started
    during = {}
    b_thread = threading.Thread(target=lambda: during.update(zip(
        ["reports", "sheets", "bad"], tenant_b(time.perf_counter() + ATTACK_SECS + 20, lambda: not any(th.is_alive() for th in threads)))))
    b_thread.start()
    for th in threads:
        th.join()
    attack_wall = time.perf_counter() - began
    b_thread.join()
    attack_peaks = sampler.peaks(mark)
    time.sleep(0.5)
    sampler.close()

    counts = {}
    for s in attack["statuses"]:
        counts[s] = counts.get(s, 0) + 1
    by_status = {}
    for s, secs in attack["times"]:
        by_status.setdefault(s, []).append(secs)
    print(f"   tenant A: {len(attack['statuses'])} exports in {attack_wall:.1f} s, answers {counts}; " + "; ".join(
        f"{s}: p50 {ms(pct(v, 50))}, max {ms(max(v))}" for s, v in sorted(by_status.items())))
    print("| tenant B, one request after another | baseline (no attack) | during the attack |")
    print("|---|---|---|")

    def cell(v):
        return f"p50 {ms(pct(v, 50))}, p99 {ms(pct(v, 99))}, max {ms(max(v))} (n={len(v)})" if v else "none"

    print(f"| report XLSX export (1,000 rows x 4 columns) | {cell(base_reports)} | {cell(during['reports'])} |")
    print(f"| spreadsheet CSV export (2 cells, an engine job) | {cell(base_sheets)} | {cell(during['sheets'])} |")
    print(f"| B's answers other than 200 | {len(base_bad)} | {len(during['bad'])} |")
    print(f"| server peak RSS / workers' peak / server + workers | {base_peaks[0]:.1f} / {base_peaks[1]:.1f} / {base_peaks[2]:.1f} MiB | "
          f"{attack_peaks[0]:.1f} / {attack_peaks[1]:.1f} / {attack_peaks[2]:.1f} MiB ({attack_peaks[3]} workers at once at most) |")
    for path, what in (base_bad + during["bad"])[:10]:
        print(f"   B refused: {path}: {what}")
    print(f"   server RSS at the end: {mib(rss_kib(PID))}, workers left: {len(workers())}; load average {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
