"""divergence.measure: largest absolute, relative and ulp distance of a compiled output from the eager one."""
import math

import pytest

# The harness itself needs only the standard library; divergence runs inside a framework's environment, which
# always has NumPy. The harness's tests on the lowest Python (test_harness_python) have none: skipped there.
np = pytest.importorskip("numpy")

from portability_harness.divergence import measure  # noqa: E402


def one(ref, got, dtype=None):
    return measure([(np.asarray(ref), dtype or str(np.asarray(ref).dtype))],
                   [(np.asarray(got), dtype or str(np.asarray(got).dtype))])


def test_identical_outputs_are_zero_everywhere_nan_included():
    x = np.array([1.0, np.nan, np.inf, -0.0], dtype=np.float32)
    assert one(x, x.copy()) == {"max_abs": 0.0, "max_rel": 0.0, "max_ulp": 0.0}


def test_one_step_to_the_next_float_is_one_ulp_in_that_dtype():
    for dtype in (np.float32, np.float16, np.float64):
        x = np.array([1.5, 3.0, 1000.0], dtype=dtype)
        y = np.nextafter(x, np.array(np.inf, dtype=dtype))
        d = one(x, y)
        assert d["max_ulp"] == 1.0, (dtype, d)
        assert math.isclose(d["max_abs"], float(y[2] - x[2]))


def test_bfloat16_values_held_in_float32_count_ulps_of_bfloat16():
    # 1.0 and 1.0078125 are neighbours in bfloat16 (7 stored mantissa bits); in float32 they are 2**16 ulps apart.
    assert one(np.float32([1.0]), np.float32([1.0078125]), "bfloat16")["max_ulp"] == 1.0
    assert one(np.float32([1.0]), np.float32([1.0078125]), "float32")["max_ulp"] == 2.0 ** 16


def test_nan_on_one_side_integers_and_complex():
    assert one(np.float32([1.0]), np.float32([np.nan]))["max_abs"] == math.inf
    assert one(np.int32([5, 7]), np.int32([5, 9])) == {"max_abs": 2.0, "max_rel": 2 / 7, "max_ulp": 2.0}
    d = one(np.complex64([1 + 1j]), np.complex64([1 + 2j]))
    assert d["max_abs"] == 1.0 and d["max_rel"] == 1.0


def test_structures_that_differ_are_a_mismatch_and_no_arrays_is_none():
    assert "shape" in one(np.zeros((2, 3)), np.zeros((3, 2)))["mismatch"]
    assert "dtype" in measure([(np.zeros(2), "float32")], [(np.zeros(2), "float16")])["mismatch"]
    assert "arrays" in measure([(np.zeros(2), "float32")], [])["mismatch"]
    assert measure([], []) is None


def test_near_zero_the_spacing_is_the_dtypes_smallest_subnormal_step():
    step = np.nextafter(np.float32(0), np.float32(1))  # 2**-149
    assert one(np.float32([0.0]), np.float32([step]))["max_ulp"] == 1.0


def test_a_digest_keeps_a_few_values_and_two_digests_compare_like_outputs():
    from portability_harness.divergence import DIGEST_VALUES, compare_digests, digest

    x = np.linspace(0, 1, 100, dtype=np.float32)
    x[0] = np.nan
    d = digest([(x, "float32")])
    assert d[0]["shape"] == [100] and len(d[0]["values"]) == DIGEST_VALUES and d[0]["values"][0] == "nan"
    assert compare_digests(d, digest([(x.copy(), "float32")])) == {"max_abs": 0.0, "max_rel": 0.0, "max_ulp": 0.0}
    y = x.copy()
    y[13] = np.nextafter(y[13], np.float32(2))  # the second value kept (stride 13)
    assert compare_digests(d, digest([(y, "float32")]))["max_ulp"] == 1.0
    assert "mismatch" in compare_digests(d, digest([(x.reshape(10, 10), "float32")]))
    assert compare_digests(None, d) is None
