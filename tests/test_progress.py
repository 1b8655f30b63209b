import io
import re

from graphglean.llm.accounting import CallAccount
from graphglean.pipeline.progress import ConsoleProgress


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    p = ConsoleProgress(out, interval_s=3600)
    p.start("graph", 2)
    acc = CallAccount(calls=3, prompt_tokens=10, completion_tokens=5)
    p.advance("graph", acc, False)
    p.advance("graph", acc, True)
    assert out.getvalue() == ("graph               1/2 items, 3 calls, 0 cached, 15 tokens, 0 errors\n"
                              "graph               2/2 items, 3 calls, 0 cached, 15 tokens, 1 error\n")


def test_one_line_per_pass_redrawn_on_a_terminal():
    out = Tty()
    p = ConsoleProgress(out)
    p.start("graph", 4)
    p.start("summary", 1)
    p.advance("graph", CallAccount(calls=1), False)
    p.advance("summary", CallAccount(calls=2), False)
    text = out.getvalue()
    assert "\x1b[1F" in text and "[#####...............] 1/4" in text and "summary" in text


def test_steps_sit_under_their_pass_and_their_labels_fit_the_column():
    out = Tty()
    p = ConsoleProgress(out)
    for name in ("graph", "graph.resolve.embed", "graph.resolve", "summary"):
        p.start(name, 1)
        p.advance(name, CallAccount(calls=1), False)
    last = re.split(r"\x1b\[\d+F", out.getvalue())[-1]  # the last redraw
    drawn = [line.split("\x1b[K")[-1] for line in last.splitlines() if "\x1b[K" in line]
    assert [line.split()[0] for line in drawn] == ["graph", "graph.resolve", "graph.resolve.embed", "summary"]
    assert len({line.index("[") for line in drawn}) == 1  # one column for the bars, whatever the name
    assert "1/1 item, 1 call," in drawn[0]


def test_a_terminal_s_lines_reach_the_log_at_a_log_s_pace_without_cursor_moves(tmp_path):
    from graphglean.pipeline.progress import RunLog, Tee

    log = RunLog(tmp_path / "logs" / "run.log", secrets=["sk-secret"])
    p = ConsoleProgress(Tty(), interval_s=3600, log=log.write)
    p.start("graph", 3)
    for _ in range(3):
        p.advance("graph", CallAccount(calls=2), False)
    console = io.StringIO()
    tee = Tee(console, log.write)
    tee.write("key sk-secret at http://u:pw@host/v1?api-key=abc&x=1\npart")
    tee.close_line()
    log.close()
    lines = (tmp_path / "logs" / "run.log").read_text().splitlines()
    said = [line.split(" ", 1)[1] for line in lines]
    assert said[0].startswith("graph") and "1/3 items" in said[0] and "3/3 items" in said[1] and len(said) == 4
    assert "\x1b" not in "".join(lines) and "[#" not in said[1]  # no cursor moves, no bar
    assert said[2] == "key [redacted] at http://[redacted]@host/v1?api-key=[redacted]&x=1" and said[3] == "part"
    assert console.getvalue().startswith("key sk-secret")  # the console itself is the user's


def test_plural():
    from graphglean.pipeline.progress import plural

    assert (plural(1, "call"), plural(0, "call"), plural(2_000, "entity", "entities")) == \
        ("1 call", "0 calls", "2,000 entities")
