// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A preloaded filter for a cmocka test program that takes no options,
 * such as libfabric's efa_unit_test: the cases named in the file
 * $CMOCKA_SKIP_LIST are left out of the group the program runs.  cmocka
 * 1.1 takes one name pattern to skip (cmocka_set_skip_filter()), not a
 * list, and a case that aborts the process ends the cases after it too,
 * so the list is applied where the program hands its cases to cmocka.
 *
 * The list has one case a line, its name first, the rest of the line
 * (why it is skipped) for the reader; empty lines and lines starting with
 * '#' are comments.  A list that cannot be read makes the run fail.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

typedef int (*run_group_fn)(const char *, const struct CMUnitTest *const,
			    const size_t, CMFixtureFunction,
			    CMFixtureFunction);

/* Whether the list in f names the case name. */
static bool listed(FILE *f, const char *name)
{
	char line[512];
	size_t len;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		len = strcspn(line, " \t\n");
		if (len && len == strlen(name) && !strncmp(line, name, len))
			return true;
	}
	return false;
}

int _cmocka_run_group_tests(const char *group_name,
			    const struct CMUnitTest *const tests,
			    const size_t num_tests,
			    CMFixtureFunction group_setup,
			    CMFixtureFunction group_teardown)
{
	run_group_fn next = (run_group_fn)dlsym(RTLD_NEXT,
						"_cmocka_run_group_tests");
	const char *path = getenv("CMOCKA_SKIP_LIST");
	struct CMUnitTest *kept;
	size_t i, n = 0;
	FILE *f;
	int ret;

	if (!next) {
		fprintf(stderr, "cmocka_skip: no cmocka behind this library\n");
		return 1;
	}
	if (!path)
		return next(group_name, tests, num_tests, group_setup,
			    group_teardown);
	f = fopen(path, "r");
	if (!f) {
		perror("cmocka_skip: $CMOCKA_SKIP_LIST");
		return 1;
	}
	kept = calloc(num_tests ? num_tests : 1, sizeof(*kept));
	if (!kept) {
		fclose(f);
		perror("cmocka_skip");
		return 1;
	}
	for (i = 0; i < num_tests; i++)
		if (!listed(f, tests[i].name))
			kept[n++] = tests[i];
	fclose(f);
	fprintf(stderr, "cmocka_skip: %zu of %zu cases run, %zu listed in %s\n",
		n, num_tests, num_tests - n, path);
	ret = next(group_name, kept, n, group_setup, group_teardown);
	free(kept);
	return ret;
}
