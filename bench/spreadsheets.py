"""Spreadsheets through the API (issue 11). Run through bench/spreadsheets.sh (a release server).

A department user creates a spreadsheet and saves BENCH_WORKBOOK (the engine's bytes of a
10,000-cell workbook with a SUM per row) into it, then: open (GET), save (PUT, checked by the
server's engine), XLSX export and XLSX import, each REPS times one after another.
"""

import base64
import json
import os
import time
import urllib.request

from common import BASE, call, login, summary, timed

REPS = int(os.environ.get("REPS", "30"))


def multipart(path, token, name, data):
    boundary = "benchboundary7d3f"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(BASE + path, data=body, method="POST")
    req.add_header("content-type", f"multipart/form-data; boundary={boundary}")
    req.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(req) as resp:
        return resp.status, json.loads(resp.read())


def main():
    admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"])
    _, ent = call("POST", "/api/v1/enterprises", admin, {"name": "Bench Sheets", "ceoFullName": "CEO", "ceoEmail": "ceo@sheets.bench",
                                                         "ceoPassword": "bench-password"})
    ceo = login("ceo@sheets.bench", "bench-password")
    _, departments = call("GET", f"/api/v1/enterprises/{ent['id']}/departments", ceo)
    finance = next(d["id"] for d in departments if d["type"] == "finance")
    call("POST", "/api/v1/users", ceo, {"fullName": "Sheet User", "email": "user@sheets.bench", "password": "bench-password",
                                        "role": "DepartmentUser", "departmentId": finance})
    user = login("user@sheets.bench", "bench-password")
    with open(os.environ["BENCH_WORKBOOK"], "rb") as f:
        workbook = f.read()
    content = base64.b64encode(workbook).decode()
    _, sheet = call("POST", f"/api/v1/departments/{finance}/spreadsheets", user, {"name": "Ten thousand cells"})
    sid = sheet["id"]
    version = [1]

    def save():
        _, saved = call("PUT", f"/api/v1/spreadsheets/{sid}", user, {"content": content, "version": version[0]})
        version[0] = saved["version"]

    save()
    print(f"## 1-4. A workbook of {len(workbook)} bytes (10,000 cells: 9,900 numbers, 100 SUMs), {REPS} requests one after another")
    print(summary("open (GET /spreadsheets/{id}, base64 content)", timed(REPS, lambda: call("GET", f"/api/v1/spreadsheets/{sid}", user), warmup=3)))
    print(summary("save (PUT, checked by the server's engine)", timed(REPS, save, warmup=3)))
    xlsx = {}

    def export():
        _, xlsx["file"] = call("GET", f"/api/v1/spreadsheets/{sid}/export?format=xlsx", user, raw=True)

    print(summary("XLSX export (evaluated by the server)", timed(REPS, export, warmup=3)))
    print(f"   the XLSX file: {len(xlsx['file'])} bytes")
    print(summary("XLSX import (unzip check, parse, evaluate)", timed(REPS, lambda: multipart(f"/api/v1/departments/{finance}/spreadsheets/import", user, "bench.xlsx", xlsx["file"]), warmup=3)))


if __name__ == "__main__":
    main()
