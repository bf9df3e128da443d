"""The pytest plugin's own check: a test that fails only on PE 1 must fail
on every PE, naming PE 1."""
import shoal


def test_fails_on_pe1():
    assert shoal.my_pe() != 1


def test_passes_everywhere():
    assert shoal.n_pes() >= 2
