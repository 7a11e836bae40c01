// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints of wq_trace.h, defined once here.
 */
#define CREATE_TRACE_POINTS
#include "wq_trace.h"
