"""A reading call's path names a file the kernel's folder has (`decoding.paths`)."""

from __future__ import annotations

from ghostbook.decoding.paths import PathAt, Paths, path_at

ABOVE = "import os\nimport pandas as pd\nurl = 'https://example.org/a.csv'\n"


def test_the_path_of_a_reading_call_is_found_where_the_line_ends_at_it() -> None:
    assert path_at("df = pd.read_csv(") == PathAt("read_csv", "", "")
    assert path_at("with open('da") == PathAt("open", "'", "da")
    assert path_at("x = np.loadtxt(fname=") == PathAt("loadtxt", "", "")
    assert path_at("pd.read_csv(url, ") is None  # past the path
    assert path_at("spread_csv(") is None and path_at("df = pd.DataFrame(") is None


def test_a_string_at_the_path_names_one_of_the_files_or_a_url() -> None:
    rule = Paths.around("df = pd.read_csv(", ["data/a.csv", "b.tsv"], ABOVE)
    assert rule is not None
    assert rule.fits(b"'data/a.csv')") and rule.fits(b'"b.tsv", sep="\\t")')
    assert not rule.fits(b"'examples/macrodata.csv')")  # a training notebook's file, not one here
    assert rule.allows(b"'examples/") is False and rule.allows(b"'data/") is None
    assert rule.fits(b"'https://example.org/x.csv')") and rule.allows(b"'http") is None
    assert rule.fits(b"f'{root}/x.csv')") and rule.fits(b"r'data/a.csv')")


def test_a_name_at_the_path_is_one_the_notebook_has_and_no_module_passed_whole() -> None:
    rule = Paths.around("df = pd.read_csv(", ["data/a.csv"], ABOVE)
    assert rule is not None
    assert rule.fits(b"url)") and rule.fits(b"os.path.join('data', 'a.csv'))")
    assert rule.allows(b"ur") is None and rule.allows(b"zz") is False
    assert not rule.fits(b"df)")  # not a name above: a NameError
    assert not rule.fits(b"pd)")  # a module is no path
    assert not rule.fits(b")") and not rule.fits(b"1)")  # the call closed empty, a number


def test_a_string_already_open_goes_on_to_a_file() -> None:
    rule = Paths.around("df = pd.read_csv('da", ["data/a.csv"], "")
    assert rule is not None
    assert rule.fits(b"ta/a.csv')") and rule.allows(b"ta/") is None and not rule.fits(b"ta.csv')")


def test_no_rule_where_the_kernel_has_not_said_or_the_cursor_is_elsewhere() -> None:
    assert Paths.around("df = pd.read_csv(", None, ABOVE) is None
    assert Paths.around("df = pd.DataFrame(", ["a.csv"], ABOVE) is None
