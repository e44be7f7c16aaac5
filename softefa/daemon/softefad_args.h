/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softefad's command line: the options main() takes, read into the
 * daemon's state and what the start needs besides.
 */
#ifndef SEFA_SOFTEFA_DAEMON_SOFTEFAD_ARGS_H
#define SEFA_SOFTEFA_DAEMON_SOFTEFAD_ARGS_H

#include "core/core.h"

/* What main() takes from the command line besides the daemon's state. */
struct start_opts {
	const char *netdev;
	const char *log;
	const char *inject;		/* fault rules, one per line */
	unsigned long ndev;
	int ready_fd;
	bool sm;
};

int sefa_parse_args(struct sefa_daemon *d, struct start_opts *o, int argc,
		    char **argv);

#endif
