import attunestats


def test_version():
    assert attunestats.__version__
