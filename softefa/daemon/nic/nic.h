/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The NIC of softefad: the engine that polls doorbells, executes work
 * requests and writes completions.
 */
#ifndef SEFA_NIC_H
#define SEFA_NIC_H

#include "verbs/verbs.h"

/* engine.c */
int sefa_engine_start(struct sefa_daemon *d);
void sefa_engine_stop(struct sefa_daemon *d);

#endif
