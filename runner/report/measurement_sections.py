"""The report's sections on time: latency across setups, first call against warm, the study's method against
ours, and how precise and steady the measurements are. Each opens with what it found, in words and numbers; a
section the data cannot fill says in one line how to get it."""
from __future__ import annotations

from pathlib import Path


from runner.report import figures, latency_tables, method_tables, precision_tables, tables
from runner.report.blocks import Block, Section, Table, counted, percent
from runner.report.load import Results
from runner.view import format_seconds


def latency_pairs(pair_list: list[latency_tables.Pair], out: Path) -> Section:
    title = "Latency across setups"
    if not pair_list:
        return Section(title, summary="Each framework was measured on one setup only: run the same framework on "
                                      "two devices (or two profiles, or both measurement modes) and report both "
                                      "folders to compare them.")
    share = latency_tables.faster_share(pair_list)
    summary = "; ".join(f"{row['framework']} {row['b']} against {row['a']}: {row['functions']} functions, "
                        f"{percent(row['faster on a %'])} faster on {row['a']}, {percent(row['faster on b %'])} faster on "
                        f"{row['b']}" for _, row in share.iterrows()) + "."
    blocks: list[Block] = [
        "Warm latency is the median of many synced calls after warm-up; cold is the first call alone, with "
        "tracing, compilation and first-use set-up, from empty compiler caches (a repeat whose first calls a "
        "cache of the cell's earlier repeat served is left out of cold figures). A function's latency is the "
        "median over the cases that passed on both setups; the ratio is b / a, so above 1 means slower on b.",
        Table(share, "Share of functions faster on one setup than the other by more than 1.1x (Figures 3 and 7 of "
                     "the study)"),
        *figures.latency_scatter(pair_list, out)]
    for p in pair_list:
        blocks.append(Table(p.table, f"{p.framework}: a = {p.a}, b = {p.b} (Tables 2, 5, 6 and 7 of the study), "
                                     "largest slowdown first"))
    return Section(title, blocks, summary=summary)


def densities(r: Results, out: Path) -> Section:
    lat = latency_tables.function_latency(r)
    drawn = figures.latency_density(lat, out)
    if not drawn:
        return Section("Latency densities", summary="No setup has two functions with a warm latency to draw: "
                                                    "a steady run (not --quick) of two or more functions has.")
    medians = lat.groupby(tables.KEYS, sort=False)["warm_median_s"].median()
    return Section("Latency densities", ["Per-function warm medians on each setup (Figure 2 of the study).",
                                         *drawn],
                   summary="Median of the functions' warm medians: " + ", ".join(
                       f"{fw} {t} {format_seconds(v)}" for (fw, t), v in medians.items()) + ".")


def generations(r: Results) -> Section:
    g = latency_tables.generations(r)
    if g.empty:
        return Section("Device generations", summary="One model of each device kind here: with two (say a T4 and "
                                                     "an A100 cell), this section sets them side by side (Table 3 "
                                                     "of the study).")
    return Section("Device generations", ["Two or more models of one device kind (Table 3 of the study).",
                                          Table(g)],
                   summary=f"{counted(g['device_model'].nunique(), 'device model')} of "
                           f"{', '.join(sorted(set(g['device'])))} measured.")


def cold_warm(r: Results) -> Section:
    t = latency_tables.cold_warm(r)
    if t.empty:
        return Section("Cold and warm", summary="No case passed with both a first call and warm samples timed.")
    return Section("Cold and warm", [
        "The first call against the warm median, per case: how much of a naive single timing is compilation "
        "and first-use set-up, which the study's figures included.", Table(t)],
        summary="Median first call / warm median: " + ", ".join(
            f"{row['framework']} {row['target']} {row['median cold/warm']:.3g}x" for _, row in t.iterrows()) + ".")


# What each compiler means per framework, and how the 2023 study ran it: said wherever the Method section is.
COMPILERS = ("Eager and compiled: eager is the call as written (JAX with jit disabled, so that jnp functions run op "
             "by op, as the 2023 study ran JAX; TensorFlow's eager execution; PyTorch's eager mode; on a torch_xla "
             "device, its lazy tensors, which XLA compiles at each sync). Compiled is JAX's jax.jit over the array "
             "arguments (traced, lowered and compiled before the first call), TensorFlow's tf.function("
             "jit_compile=True) (XLA must take the whole function), and PyTorch's torch.compile (inductor on a CPU "
             "or GPU, openxla on an XLA device; a graph break is a fallback). The study measured eager only: "
             "TensorFlow and PyTorch in their eager modes and JAX without jit. Compile time is recorded apart "
             "(compile_s) and the first call is never a sample. A cell's first repeat compiles from empty compiler "
             "caches; its later repeats may reuse the persistent caches it filled (JAX's compilation cache, eager "
             "JAX's per-primitive compilations included; TorchInductor's and Triton's; TensorFlow's XLA cache; the "
             "CUDA driver's), and mark their first calls cold_cached: cold and compile figures come from the cold "
             "repeats only, while warm samples, timed after the first call, are alike either way.")


def method(r: Results) -> Section:
    title = "Method: the study's against ours"
    m = method_tables.method(r)
    if m.verdicts.empty:
        return Section(title, [COMPILERS], summary=(
            "No setup was measured both ways: set mode = [\"steady\", \"paper\"] in matrix.toml (or run `runner "
            "bench --mode paper` beside a steady run) to see how much the study's one cold call changes verdicts and "
            "latencies."))
    differ = int(m.verdicts["verdicts that differ"].sum())
    blocks: list[Block] = [
        COMPILERS,
        "The same cells measured both ways: steady (warm-up, samples until the median is precise, soft placement "
        "as shipped) and paper (the 2023 study's: one call, no warm-up, TensorFlow's soft placement off).",
        Table(m.verdicts, "Verdicts per framework: functions measured both ways, and how many changed"),
        Table(m.changed, "Functions whose verdict depends on the method") if not m.changed.empty
        else "No function's verdict depends on the method.",
        Table(method_tables.method_ratio_summary(m), "Paper latency (one cold call) / steady warm median, per "
              "function: how far a single cold call is from the steady state")]
    if not m.devices.empty:
        blocks.append(Table(m.devices, "Two devices: device-to-device ratios that move by more than 1.1x between "
                                       "the methods, and functions whose faster device flips"))
    else:
        blocks.append("One device per framework here: with two (a CPU and a GPU cell, both ways), this section "
                      "also says how many device-to-device comparisons the method changes.")
    return Section(title, blocks, summary=f"{int(m.verdicts['functions'].sum())} functions measured both ways; "
                                          f"{differ} verdict(s) differ between the methods.")


def precision(r: Results, out: Path) -> Section:
    s = precision_tables.sampling(r)
    blocks: list[Block] = [
        "Steady sampling stops when the median's 95% confidence interval (order statistics) is within the target "
        "(matrix.toml's precision), at the cap (1 s of samples), or earlier when the interval, narrowing as 1/√n, "
        "could not reach the target before the cap (unreachable). A case stopped at the cap or out of reach is "
        "imprecise: its interval is listed.",
        Table(s) if not s.empty else "No case here was timed by the precision rule (quick, paper or older records)."]
    capped = precision_tables.imprecise(r)
    if not capped.empty:
        blocks.append(Table(capped, f"Imprecise cases: stopped at the cap or out of reach ({len(capped)})"))
    a = precision_tables.agreement(r)
    blocks.append(Table(a, "Repeat agreement: median |log ratio| of a case's latency between repeats, cases above "
                           "100 µs (lower is better; 5% means repeats typically differ by 5%), by its minimum sample "
                           "(what runs are compared by: a host's interference only adds time), by its minimum where "
                           "the host ran at its usual speed before the case in both repeats (calibration within "
                           f"{precision_tables.HOST_SLOW}x of its run's 10th percentile; the share of pairs left out "
                           "beside it), by its median, and by its median per unit of host speed")
                  if not a.empty else "One repeat per setup: run with --repeats 2 or more to see how repeats agree.")
    h = precision_tables.host_speed(r)
    if not h.empty:
        blocks += ["Host speed: a fixed pure-Python workload timed before every case. Where it moves, the host "
                   "changed speed under the measurement (another tenant, a frequency change); the agreement "
                   "column per host speed divides each median by it.",
                   Table(h), *figures.host_speed(r.cases, out)]
    timed = int(s["timed cases"].sum()) if not s.empty else 0
    summary = (f"{counted(timed, 'timed case')}: {int(s['precise'].sum())} precise, {len(capped)} imprecise"
               if timed else "No case timed by the precision rule")
    if not a.empty:
        summary += "; repeats agree within " + ", ".join(
            f"{row['|log ratio| % (minimum)']} % ({row['framework']} {row['target']})" for _, row in a.iterrows())
    return Section("Precision and stability", blocks, summary=summary + ".")


def spread(r: Results) -> Section:
    s = latency_tables.spread(r)
    flaky = tables.flaky(r)
    blocks: list[Block] = ["Within a run: the interquartile range of each case's warm samples relative to its "
                           "median. Between repeats: how far the same case's warm median moved (max / min).",
                           Table(s)]
    if (s["repeats"] < 2).all():
        blocks.append("One repeat per setup: run with --repeats 2 or more to see the spread between runs.")
    blocks.append(Table(flaky, "Cases whose outcome changed between repeats") if not flaky.empty
                  else "No case changed outcome between repeats.")
    return Section("Run-to-run spread", blocks, summary=(
        "Median IQR / median within a run: " + ", ".join(
            f"{row['framework']} {row['target']} {percent(row['median IQR / median %'])}" for _, row in s.iterrows())
        + f"; {counted(len(flaky), 'case')} changed outcome between repeats."))
