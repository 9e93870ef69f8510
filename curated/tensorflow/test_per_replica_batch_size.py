"""tf.distribute.InputContext.get_per_replica_batch_size: cases adapted from tensorflow/python/distribute/distribute_lib_test.py (InputContextTest.testPerReplicaBatchSize, testProperties), plus the InputContext a strategy hands to distribute_datasets_from_function; UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases.

A host-side computation: global batch size // replicas, refused when it does not divide."""
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.distribute.InputContext.get_per_replica_batch_size", decile=40,
                                  top20=False, paper_label="tf.distribute.Strategy.get_per_replica_batch_size",
                                  backward=("integer arithmetic on Python ints (global batch size // replicas): no "
                                            "tensor"))

UPSTREAM_TESTS = {
    "tensorflow/python/distribute/distribute_lib_test.py::InputContextTest::testPerReplicaBatchSize": [
        "test_per_replica_batch_size", "test_per_replica_batch_size_not_divisible",
        "test_per_replica_batch_size_from_strategy"],
    "tensorflow/python/distribute/distribute_lib_test.py::InputContextTest::testProperties": [
        "test_per_replica_batch_size"],
}


@pytest.mark.parametrize("pipelines,pipeline_id,replicas,global_batch,expected", [
    (2, 1, 6, 12, 2),        # testPerReplicaBatchSize
    (1, 0, 1, 64, 64),       # the default context
    (4, 3, 8, 1024, 128),
    (1, 0, 42, 42, 1),
    (2, 0, 4, 0, 0),         # an empty global batch
], ids=["upstream", "single_replica", "eight_replicas", "one_per_replica", "zero"])
def test_per_replica_batch_size(bench, device, pipelines, pipeline_id, replicas, global_batch, expected):
    ctx = tf.distribute.InputContext(num_input_pipelines=pipelines, input_pipeline_id=pipeline_id,
                                     num_replicas_in_sync=replicas)
    result = bench(tf.distribute.InputContext.get_per_replica_batch_size, ctx, global_batch)
    assert result == expected
    assert isinstance(result, int)
    # testProperties: the context is left as it was built.
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == \
        (pipelines, pipeline_id, replicas)


@pytest.mark.parametrize("global_batch", [13, 7])
def test_per_replica_batch_size_not_divisible(bench, device, global_batch):
    # testPerReplicaBatchSize: 13 over 6 replicas raises ValueError; timed on the divisible 12.
    ctx = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1, num_replicas_in_sync=6)
    result = bench(tf.distribute.InputContext.get_per_replica_batch_size, ctx, 12)
    assert result == 2
    with pytest.raises(ValueError):
        ctx.get_per_replica_batch_size(global_batch)


def test_per_replica_batch_size_from_strategy(bench, device):
    # The context the default strategy passes to a dataset function, used to batch the dataset.
    strategy = tf.distribute.get_strategy()
    seen = []

    def dataset_fn(input_context):
        seen.append(input_context)
        return tf.data.Dataset.range(32).batch(input_context.get_per_replica_batch_size(16))

    dist = strategy.distribute_datasets_from_function(dataset_fn)
    (ctx,) = seen
    result = bench(tf.distribute.InputContext.get_per_replica_batch_size, ctx, 16)
    assert result == 16 // strategy.num_replicas_in_sync
    first = next(iter(dist))
    assert first.numpy().tolist() == list(range(result))
