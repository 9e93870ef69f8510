"""Helpers that several curated TensorFlow modules share (not a curated module itself: no test_ prefix).

The modules import it as `from _support import ...` (the worker puts this folder on sys.path). Everything here
runs outside the timed call, in the cases' checks.
"""
import numpy as np
import tensorflow as tf


def values_of(dataset):
    """A dataset's elements as Python values, in order, read in batches of 1000: one NumPy array per component
    and batch instead of an eager tensor (or a NumPy value) per element, which took 0.1-0.2 s for 1000 elements
    and 2.5 s for 20,000. For datasets whose elements share one structure and shape (a batch is then dense and
    splits back into them exactly)."""
    out = []
    for batch in dataset.batch(1000).as_numpy_iterator():
        if isinstance(batch, np.ndarray):  # one component: the batch's rows are the elements
            out += batch.tolist()
            continue
        components = tf.nest.flatten(batch)
        out += [tf.nest.pack_sequence_as(batch, [c[i].tolist() for c in components]) for i in range(len(components[0]))]
    return out
