// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where a SoftEFA host lives when nobody says: shared by all three parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir.h"

int sefa_run_dir(char *buf, size_t len)
{
	const char *env = getenv(SEFA_RUN_DIR_ENV);
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/run/softefa");
	else if (xdg && *xdg)
		n = snprintf(buf, len, "%s/softefa", xdg);
	else
		n = snprintf(buf, len, "/tmp/softefa-%u", (unsigned int)geteuid());
	return n < 0 || (size_t)n >= len || n > SEFA_RUN_DIR_MAX ? -1 : 0;
}

int sefa_run_dir_set(char *buf, size_t len, const char *dir)
{
	size_t n = strlen(dir);

	if (!n || n > SEFA_RUN_DIR_MAX || n >= len)
		return -1;
	memcpy(buf, dir, n + 1);
	return 0;
}
