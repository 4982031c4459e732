"""``pytest_assertrepr_compare`` for a failed ``JsonMatches`` inside a bigger structure."""

from __future__ import annotations

import pytest

NESTED = """
from pytest_structeval import JsonMatches

def test_body():
    response = {"status": 200, "body": '```json\\n{"count": 6, "x": "abc"}\\n```'}
    assert response == {"status": 200, "body": JsonMatches({"count": 5, "x": "abc"})}
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    return pytester


def error_lines(result: pytest.RunResult) -> list[str]:
    """The ``E`` lines of the failure, without pytest's ``E`` prefix and indentation."""
    return [line[1:].strip() for line in result.stdout.lines if line.startswith("E ")]


def test_nested_matcher_adds_its_table_after_pytests_diff(project: pytest.Pytester) -> None:
    project.makepyfile(NESTED)
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    lines = error_lines(result)
    assert "Differing items:" in lines  # pytest's own diff of the dict is kept
    head = "right['body']: structured answer does not match (strict score 0.5000)"
    assert lines.index("Differing items:") < lines.index(head)
    table = lines[lines.index(head) + 1 :]
    assert table[0].split() == ["path", "gold", "model", "score", "reason"]
    assert table[1].startswith("answer.count  5     6      0.80")
    assert not any(line.startswith("answer.x") for line in lines)  # only failing paths
    # The matcher's repr carries its last result, so pytest's own lines say what failed.
    assert any(line.endswith("mode='strict') -> 0.50: 1 mismatch}") for line in lines)


def test_matchers_on_the_left_in_lists_and_tuples(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches

        def test_left():
            expected = ({"items": [JsonMatches({"a": 1}), JsonMatches({"b": [1, 2]})]},)
            assert expected == ({"items": ['{"a": 1}', '{"b": [1, 3]}']},)
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    lines = error_lines(result)
    heads = [line for line in lines if "structured answer does not match" in line]
    assert heads == ["left[0]['items'][1]: structured answer does not match (strict score 0.5000)"]
    assert any(line.startswith("answer.b[1]  2     3") for line in lines)


def test_short_circuited_matcher_is_explained_with_the_other_difference(
    project: pytest.Pytester,
) -> None:
    """``dict ==`` stops at the differing status; pytest's diff then compares the body."""
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches

        def test_status():
            response = {"status": 500, "body": '{"count": 6}'}
            assert response == {"status": 200, "body": JsonMatches({"count": 5})}
        """
    )
    lines = error_lines(project.runpytest())
    assert "{'status': 500} != {'status': 200}" in lines
    assert "right['body']: structured answer does not match (strict score 0.0000)" in lines
    assert any(line.startswith("answer.count") for line in lines)


def test_diff_off_keeps_one_line_per_nested_matcher(project: pytest.Pytester) -> None:
    project.makepyfile(NESTED)
    lines = error_lines(project.runpytest("--structeval-diff", "off"))
    assert "right['body']: structured answer does not match (strict score 0.5000)" in lines
    assert not any(line.startswith(("path ", "answer.")) for line in lines)


def test_many_failed_matchers_are_capped(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches

        def test_many():  # pytest's dict diff compares (so evaluates) every common key
            assert dict.fromkeys(range(7), '{"a": 2}') == {
                n: JsonMatches({"a": 1}) for n in range(7)
            }
        """
    )
    lines = error_lines(project.runpytest("-vv"))
    heads = [line for line in lines if "structured answer does not match" in line]
    assert [h.split(":")[0] for h in heads] == [f"right[{n}]" for n in range(5)]
    assert "... and 2 more failed JsonMatches" in lines


def test_other_failing_asserts_keep_pytests_explanation(project: pytest.Pytester) -> None:
    """With no JsonMatches inside (even once the engine is loaded), the wrapper changes nothing."""
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches

        def test_plain():
            assert JsonMatches({"a": 1}) == {"a": 1}
            assert {"a": [1, 2], "b": "x"} == {"a": [1, 3], "b": "x"}
        """
    )
    with_plugin = error_lines(project.runpytest("-vv"))
    without = error_lines(project.runpytest("-vv", "-p", "no:structeval"))
    assert "Differing items:" in with_plugin
    assert with_plugin == without


def test_a_matched_matcher_is_not_shown_as_changed_in_the_full_diff(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches

        def test_fenced_body():
            response = {"status": 500, "body": '```json\\n{"count": 5}\\n```'}
            assert response == {"status": 200, "body": JsonMatches({"count": 5})}

        def test_dict_body():
            body = {"count": 5, "tags": ["a", "b"]}
            response = {"status": 500, "body": body}
            assert response == {"status": 200, "body": JsonMatches(dict(body))}
        """
    )
    result = project.runpytest("-vv")
    result.assert_outcomes(failed=2)
    diff = [" ".join(line.split()) for line in error_lines(result) if line[:1] in ("-", "+", "?")]
    assert diff.count("- 'status': 200,") == 2  # the one difference, in both tests
    assert diff.count("+ 'status': 500,") == 2
    assert len(diff) == 8  # two "?" marker lines each, and nothing of the accepted bodies


def test_the_matcher_printer_fits_the_stream_printers_of_earlier_pytest_releases() -> None:
    """pytest before 9.2 copies the standard library's printer, whose entries write to a
    stream: the 9.2 entry there broke every -v diff holding a matcher (review)."""
    import pprint
    from typing import Any, ClassVar

    from pytest_structeval import JsonMatches
    from pytest_structeval.matcherprint import matcher_printer

    class StreamPrinter(pprint.PrettyPrinter):
        _dispatch: ClassVar[dict[Any, Any]] = dict(pprint.PrettyPrinter._dispatch)  # type: ignore[attr-defined]

    handler = matcher_printer(StreamPrinter)
    assert handler is not None
    StreamPrinter._dispatch[JsonMatches.__repr__] = handler
    value = {"count": 5, "tags": ["a", "b"], "note": "x" * 60}
    matcher = JsonMatches(dict(value))
    assert value == matcher
    printer = StreamPrinter(width=20)
    assert printer.pformat({"body": matcher}) == printer.pformat({"body": value})
    failed = JsonMatches({"count": 6})
    assert value != failed
    assert printer.pformat([failed]) == f"[{failed!r}]"
    assert matcher_printer(int) is None  # no dispatch table: nothing registered
