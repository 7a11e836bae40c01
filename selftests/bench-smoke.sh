#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-smoke.sh: the benchmark of `make bench` (wq_bench.ko and wq_bench,
# driven by bench-guest) once with tiny counts, so it cannot rot.
# Benchmarks are not tests: no time is asserted, only that every figure
# ran. busybox sh compatible.
cd "$(dirname "$0")" || exit 1
exec sh ./bench-guest --smoke
