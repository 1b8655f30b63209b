"""Reliability figures (issue 9): faults, kill -9 resumes, Ctrl-C, bad inputs, secrets, load.

    python benchmarks/reliability.py

Every run here is a real `graphglean run` process against `python -m graphglean.testing.serve` in
another process; the calls are counted by the server.
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import fake_server, help_only, server_stats  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("OPENAI_API_KEY", None)
NAMES = ["Ada Lovelace", "Charles Babbage", "Alan Turing", "Grace Hopper", "John McCarthy", "Marvin Minsky",
         "Claude Shannon", "Barbara Liskov", "Edsger Dijkstra", "Donald Knuth", "Frances Allen", "Ken Thompson"]


def corpus(path: Path, chunks: int) -> Path:
    paras = [f"In chapter {i} {NAMES[i % 12]} wrote to {NAMES[(i * 5 + 1) % 12]} about machines, and "
             f"{NAMES[(i * 7 + 2) % 12]} replied." for i in range(chunks)]
    path.write_text("\n\n".join(paras))
    return path


def config(tmp: Path, url: str, text: Path, name: str, **llm) -> Path:
    cfg = {"llm": {"base_url": url, "api_key": llm.pop("api_key", "sk-bench"), "model": "gpt-4",
                   "max_concurrency": llm.pop("max_concurrency", 32), "max_retries": 10, "timeout_s": 2,
                   "cache": {"mode": "readwrite", "path": str(tmp / f"{name}-cache.sqlite")}, **llm},
           "input": {"path": str(text)}, "chunking": {"size": 24, "overlap": 0},
           "graph": {"description_max_tokens": 1000000}, "output": {"dir": str(tmp / name)}}
    path = tmp / f"{name}.yaml"
    path.write_text(json.dumps(cfg))
    return path


def run(cfg: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphglean", "run", str(cfg), *extra], env=ENV,
                          capture_output=True)


def graph_of(out: Path) -> str:
    return (out / "graph.json").read_text()


def faults(tmp: Path) -> str:
    text = corpus(tmp / "faults.txt", 240)
    with fake_server("--latency", "0.02") as url:
        assert run(config(tmp, url, text, "clean")).returncode == 0
    with fake_server("--latency", "0.02", "--fault-rate", "0.1", "--rpm", "3000", "--hang-s", "30",
                     "--fault-kinds", "500,503,drop,truncated,timeout,malformed", "--seed", "11") as url:
        r = run(config(tmp, url, text, "faulty"))
        stats = server_stats(url)
    report = json.loads((tmp / "faulty" / "report.json").read_text())["passes"][0]
    same = graph_of(tmp / "clean") == graph_of(tmp / "faulty")
    return (f"faults: {report['chunks']}/{report['chunks']} chunks, {report['failed_chunks']} lost, "
            f"{report['retries']} retries ({sum(stats['faults_injected'].values())} faults injected, "
            f"{stats['status_counts'].get('429', 0)} answered 429 of {stats['requests']} requests), "
            f"graph {'identical' if same else 'DIFFERENT'}; exit {r.returncode}")


def interruptions(tmp: Path) -> str:
    text = corpus(tmp / "kill.txt", 120)
    rng = random.Random(9)
    with fake_server("--latency", "0.05") as url:
        assert run(config(tmp, url, text, "ref")).returncode == 0
        reference = server_stats(url)["chat_requests"]
    with fake_server("--latency", "0.05") as url:
        cfg = config(tmp, url, text, "killed")
        in_flight = []
        for _ in range(5):
            before = server_stats(url)["chat_requests"]
            proc = subprocess.Popen([sys.executable, "-m", "graphglean", "run", str(cfg)], env=ENV,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            target = before + rng.randint(5, reference // 6)
            while server_stats(url)["chat_requests"] < target and proc.poll() is None:
                time.sleep(0.01)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            in_flight.append(server_stats(url)["in_flight"])
        final = run(cfg)
        total = server_stats(url)["chat_requests"]
    same = graph_of(tmp / "ref") == graph_of(tmp / "killed")
    leftovers = [p.name for p in (tmp / "killed").iterdir() if p.name.endswith(".tmp")]
    return (f"interruption: 5 kill -9 + resume, exit {final.returncode}, outputs "
            f"{'identical' if same else 'DIFFERENT'}, {total} calls vs {reference} uninterrupted "
            f"(+{total - reference}; bound: 5 kills x 32 slots = 160; server saw {sum(in_flight)} still open "
            f"just after the kills), {len(leftovers)} temp files left")


def cancellation(tmp: Path) -> str:
    text = corpus(tmp / "int.txt", 300)
    with fake_server("--latency", "0.3") as url:
        cfg = config(tmp, url, text, "sigint")
        proc = subprocess.Popen([sys.executable, "-m", "graphglean", "run", str(cfg)], env=ENV,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        store = tmp / "sigint" / "run.sqlite"
        import sqlite3

        def stored() -> int:
            try:
                return sqlite3.connect(store).execute("SELECT COUNT(*) FROM results").fetchone()[0]
            except sqlite3.Error:
                return 0

        while stored() < 20:
            time.sleep(0.02)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        err = proc.communicate()[1].decode()
        took = time.monotonic() - t0
    kept = stored()
    return (f"cancellation: SIGINT -> exit {proc.returncode} in {took:.2f} s, {kept} finished chunks kept, "
            f"message: {err.strip().splitlines()[-1][:70]!r}")


def secrets(tmp: Path) -> str:
    marker = "sk-MARKER-" + os.urandom(6).hex()
    text = corpus(tmp / "secret.txt", 60)
    with fake_server("--fault-rate", "0.15", "--fault-kinds", "500,503,drop,malformed") as url:
        r = run(config(tmp, url, text, "secret", api_key=marker))
    found = sum(marker.encode() in blob for blob in [r.stdout, r.stderr] +
                [p.read_bytes() for p in tmp.rglob("*") if p.is_file() and not p.name.endswith(".yaml")])
    return f"secrets: key found {found} times (stdout, stderr, cache, run store, every output; exit {r.returncode})"


def load(tmp: Path) -> str:
    text = corpus(tmp / "load.txt", 2450)
    with fake_server("--latency", "0.2") as url:
        cfg = config(tmp, url, text, "load", max_concurrency=256)
        r = run(cfg)
        stats = server_stats(url)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    report = json.loads((tmp / "load" / "report.json").read_text())
    return (f"load: {report['chunks']} chunks at concurrency 256, exit {r.returncode}, {stats['chat_requests']} calls in "
            f"{report['wall_s']:.1f} s, server saw {stats['max_in_flight']} in flight at once, "
            f"client peak RSS {peak_mb:.0f} MB (largest child process so far)")


def bad_inputs() -> str:
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(ROOT / "tests" / "reliability" / "test_runs.py"), "-k", "bad_ or folder_ or endpoint_ or 50_mb"],
                       capture_output=True, cwd=ROOT, env=ENV)
    return "bad input and endpoint cases (pytest): " + r.stdout.decode().strip().splitlines()[-1]


def main() -> None:
    parts = [globals()[name] for name in sys.argv[1:]] or [faults, interruptions, cancellation, secrets, load]
    with tempfile.TemporaryDirectory() as tmp:
        for part in parts:
            d = Path(tmp) / part.__name__
            d.mkdir()
            print(part(d), flush=True)
    if len(sys.argv) == 1:
        print(bad_inputs())


if __name__ == "__main__":
    help_only(__doc__)
    main()
