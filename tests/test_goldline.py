"""Where a part of a gold stands in its file (``goldline.part_line``): a GoldWarning about a
``line_by_line`` line points at that line, not at the gold's first one."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_structeval.goldline import part_line

LIMIT = 1_000_000


@pytest.mark.parametrize(
    ("text", "line", "part", "expected"),
    [
        ('{"c": 3}\n{"d": 4\n', 1, '{"d": 4', 2),
        ('{"c": 3}\r\n\r\n  {"d": 4  \r\n', 1, '  {"d": 4 ', 3),  # CRLF, as stripped
        ("n: 1\nexpected_answer: |\n  [1]\n  [2, 3\n", 2, "[2, 3", 4),
        ('- expected_answer: "[2, 3"\n- expected_answer: "[2, 3"\n', 2, "[2, 3", 2),  # from 2 on
        ('{"expected_answer": "[1]\\n[2, 3"}\n', 1, "[2, 3", 1),  # inside an escaped string
        ("[1]\n", 1, "[9", 1),  # not written as it reads
        ("[1]\n", 1, "   ", 1),  # nothing to look for
        ("[1]\n", 7, "[1]", 1),  # a line past the end: looked for from the start
    ],
)
def test_a_part_is_found_on_its_line_from_the_gold_on(
    tmp_path: Path, text: str, line: int, part: str, expected: int
) -> None:
    path = tmp_path / "gold"
    path.write_bytes(text.encode())
    assert part_line(str(path), line, part, LIMIT) == expected


def test_a_file_that_does_not_read_keeps_the_gold_line(tmp_path: Path) -> None:
    assert part_line(str(tmp_path / "gone.txt"), 3, "[1", LIMIT) == 3
    big = tmp_path / "big.txt"
    big.write_text("x\n[1\n" * 10, encoding="utf-8")
    assert part_line(str(big), 1, "[1", limit=5) == 1  # over the limit: not read
