"""tests/scheduling.py reads from a module's text what it needs to hand the module's tests out."""
from __future__ import annotations

from pathlib import Path

from tests.scheduling import long_first, shares_fixtures

TESTS = Path(__file__).resolve().parent


def test_a_module_marked_long_first_is_found_and_an_unmarked_one_is_not(tmp_path):
    marked = tmp_path / "test_marked.py"
    marked.write_text("import pytest\n\npytestmark = pytest.mark.long_first   # minutes\n")
    plain = tmp_path / "test_plain.py"
    plain.write_text("import pytest\n\n# pytest.mark.long_first in a comment says nothing\n")
    assert long_first(marked) and not long_first(plain)
    assert long_first(TESTS / "runtime" / "test_c_suite.py")


def test_a_module_with_a_module_scoped_fixture_stays_on_one_worker(tmp_path):
    shared = tmp_path / "test_shared.py"
    shared.write_text("@pytest.fixture(scope='module')\ndef server(): ...\n")
    alone = tmp_path / "test_alone.py"
    alone.write_text("@pytest.fixture\ndef server(): ...\n")
    assert shares_fixtures(shared, tmp_path) and not shares_fixtures(alone, tmp_path)
