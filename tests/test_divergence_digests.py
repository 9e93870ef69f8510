"""Two cells' output digests set side by side (the report's "Same function, different answer"): text leaves."""
import numpy as np
from portability_harness.divergence import compare_digests, digest


def test_a_string_output_is_compared_as_text_and_the_numbers_beside_it_as_numbers():
    name = np.array(b"uiuc")  # what a TensorFlow string tensor's .numpy() gives
    values = np.array([1.0, 2.0, np.inf], dtype=np.float32)
    reference = digest([(name, "string"), (values, "float32")])
    moved = digest([(name, "string"), (values * np.float32(1 + 2 ** -23), "float32")])
    assert compare_digests(reference, digest([(name, "string")])) == {"mismatch": "shapes [[]], not [[], [3]]"}
    assert compare_digests(digest([(name, "string")]), digest([(name, "string")])) is None  # no number to measure
    assert compare_digests(digest([(name, "string")]), digest([(np.array(b"mit"), "string")])) == {
        "mismatch": "text values differ"}
    measured = compare_digests(reference, moved)
    assert measured is not None and measured["max_ulp"] == 1.0, measured
