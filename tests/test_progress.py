import io

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
