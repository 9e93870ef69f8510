"""Every curated module of the study's sample declares the upstream test methods it cites (UPSTREAM_TESTS), each
represented by tests of the module or left out with a reason, with backward cases where its function is
differentiable and the reason in its marker where it is not (docs/curated-cases.md); `runner list --coverage` shows
the table."""
from __future__ import annotations

import re
import textwrap

from conftest import CURATED, runner_cli
from portability_harness import upstream
from portability_harness.catalog import curated

# The modules of the study's sample not converted yet (docs/curated-cases.md, Converting a module): the checks below
# skip them. Converting a module takes it out of this list; the list shrinks to empty, and then goes.
UNCONVERTED = {
    "tensorflow/test_adadelta_optimizer.py", "tensorflow/test_as_dtype.py", "tensorflow/test_assert_less.py",
    "tensorflow/test_checkpoint_saver_hook.py", "tensorflow/test_compute_gradient_error.py",
    "tensorflow/test_constant.py", "tensorflow/test_convert_to_tensor.py", "tensorflow/test_data_from_list.py",
    "tensorflow/test_dataset_shard.py", "tensorflow/test_dense_to_ragged_batch.py",
    "tensorflow/test_draw_bounding_boxes.py", "tensorflow/test_exponential_moving_average.py",
    "tensorflow/test_get_collection.py", "tensorflow/test_get_global_step.py",
    "tensorflow/test_global_variables_initializer.py", "tensorflow/test_graph_as_default.py",
    "tensorflow/test_is_variable_initialized.py", "tensorflow/test_key_value_tensor_initializer.py",
    "tensorflow/test_list_variables.py", "tensorflow/test_logging_tensor_hook.py",
    "tensorflow/test_metrics_accuracy.py", "tensorflow/test_nest_map_structure.py",
    "tensorflow/test_nest_map_structure_up_to.py", "tensorflow/test_normal_param_shapes.py",
    "tensorflow/test_numpy_function.py", "tensorflow/test_numpy_random_standard_normal.py",
    "tensorflow/test_parse_single_sequence_example.py", "tensorflow/test_per_replica_batch_size.py",
    "tensorflow/test_placeholder.py", "tensorflow/test_print.py", "tensorflow/test_range.py",
    "tensorflow/test_sequence_mask.py", "tensorflow/test_session_run.py", "tensorflow/test_sets_intersection.py",
    "tensorflow/test_shuffle_and_repeat.py", "tensorflow/test_simple_save.py", "tensorflow/test_summary_flush.py",
    "tensorflow/test_tensor_eval.py", "tensorflow/test_tensor_get_shape.py", "tensorflow/test_testcase_assert_equal.py",
    "tensorflow/test_text_line_reader_restore_state.py", "tensorflow/test_variable.py",
    "tensorflow/test_variable_scope.py", "tensorflow/test_zeros.py",
    "jax/test_arange.py", "jax/test_array.py", "jax/test_compress.py", "jax/test_convolve.py",
    "jax/test_convolve2d.py", "jax/test_delete.py", "jax/test_disable_jit.py", "jax/test_eig.py",
    "jax/test_einsum_path.py", "jax/test_eval_context.py", "jax/test_flip.py", "jax/test_fliplr.py",
    "jax/test_gammaln.py", "jax/test_get_aval.py", "jax/test_i0.py", "jax/test_isscalar.py", "jax/test_lax_ge.py",
    "jax/test_lax_infeed.py", "jax/test_lu.py", "jax/test_make_jaxpr.py", "jax/test_named_call.py", "jax/test_ndtr.py",
    "jax/test_norm_cdf.py", "jax/test_one_hot.py", "jax/test_ones.py", "jax/test_partial.py",
    "jax/test_partial_val.py", "jax/test_prngkey.py", "jax/test_reshape.py", "jax/test_save.py", "jax/test_size.py",
    "jax/test_split.py", "jax/test_stack.py", "jax/test_svd.py", "jax/test_trace_to_jaxpr_dynamic.py",
    "jax/test_tree_map.py", "jax/test_tree_unflatten.py", "jax/test_tril.py", "jax/test_tril_indices_from.py",
    "jax/test_triu_indices.py", "jax/test_vjp.py", "jax/test_zeros.py",
}


def test_every_converted_module_declares_its_upstream_tests_completely():
    found = curated(str(CURATED))
    problems = [f"{f.module}: {p}" for f in found if f.in_study and f.module not in UNCONVERTED
                for p in upstream.problems(str(CURATED / f.module), f.backward)]
    assert not problems, "\n".join(problems)


def test_the_list_of_unconverted_modules_only_shrinks():
    modules = {f.module: f for f in curated(str(CURATED))}
    gone = sorted(m for m in UNCONVERTED if m not in modules)
    converted = sorted(m for m in UNCONVERTED if m in modules and modules[m].upstream is not None)
    assert not gone, f"no such module: take {gone} out of UNCONVERTED"
    assert not converted, f"converted (they declare UPSTREAM_TESTS): take {converted} out of UNCONVERTED"


MODULE = '''
    import pytest

    pytestmark = pytest.mark.function("torch.example"{backward})

    UPSTREAM_TESTS = {{
        "test/test_x.py::TestX::test_represented": ["test_forward"],
        "test/test_x.py::TestX::test_missing_local": ["test_forward", "test_nowhere"],
        "test/test_x.py::TestX::test_no_reason": "",
        "test_no_path": ["test_forward"],
    }}


    def test_forward(bench, device):
        pass


    @pytest.mark.layout("sparse_bsr")
    def test_other_backward(backward, device):
        pass
'''


def test_an_incomplete_declaration_is_named_with_what_it_lacks(tmp_path):
    path = tmp_path / "test_example.py"
    path.write_text(textwrap.dedent(MODULE.format(backward=', backward="integer output"')))
    problems = "\n".join(upstream.problems(str(path), "integer output"))
    assert "test_x.py::TestX::test_missing_local: test_nowhere is not a test of this module" in problems
    assert "test_x.py::TestX::test_no_reason: left out without a reason" in problems
    assert "'test_no_path': name an upstream test as path::Class::method" in problems
    assert "the marker says 'integer output' (no backward cases), yet test_other_backward take" in problems
    assert "test_other_backward (backward) is cited by no upstream method" in problems
    assert "test_other_backward: unknown layout 'sparse_bsr'" in problems
    assert len(problems.splitlines()) == 6, problems
    # A differentiable function (no reason in its marker) needs backward cases.
    path.write_text(textwrap.dedent(MODULE.format(backward="")).replace("(backward, device)", "(bench, device)"))
    assert any("no backward case: a differentiable function" in p for p in upstream.problems(str(path), None))
    # A module without the declaration says so.
    path.write_text("import pytest\n\npytestmark = pytest.mark.function('torch.example')\n")
    assert upstream.problems(str(path), None) == ["no UPSTREAM_TESTS: declare the upstream test methods the module "
                                                  "cites (docs/curated-cases.md)"]


def test_runner_list_coverage_shows_each_method_with_what_represents_it():
    proc = runner_cli("list", "--coverage", "--framework", "torch")
    assert proc.returncode == 0, proc.stderr
    sparse = [l for l in proc.stdout.splitlines() if "test_as_sparse_gradcheck" in l]
    assert sparse and "torch.sum" in sparse[0] and "sparse_coo, sparse_csr" in sparse[0], sparse
    argsort = [l for l in proc.stdout.splitlines() if "torch.argsort" in l and "test_msort" in l]
    assert argsort and "none: integer output (indices)" in argsort[0], argsort
    assert any("test_sum_meta" in l and "the meta device" in l for l in proc.stdout.splitlines())
    # Every torch module declares its upstream tests now; a module that does not yet is listed as such.
    assert re.search(r"torch: (\d+) of \1 functions declare their upstream tests", proc.stdout), proc.stdout[:300]
    assert "(not declared yet" not in proc.stdout
    if UNCONVERTED:
        every = runner_cli("list", "--coverage")
        assert every.returncode == 0, every.stderr
        undeclared = [l for l in every.stdout.splitlines() if "(not declared yet" in l]
        assert undeclared and any(m.split("/")[0] in undeclared[0] for m in UNCONVERTED), undeclared[:1]
