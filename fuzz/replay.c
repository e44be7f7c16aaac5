// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A harness's main() where libFuzzer is not linked (gcc, the ASan build):
 * every file named, or in a directory named, goes through
 * LLVMFuzzerTestOneInput() once, in name order.  The corpus replay of
 * ctest; a harness that crashes or aborts fails it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		perror(path);
		if (f)
			fclose(f);
		return -1;
	}
	/* one byte more, so an empty file is no NULL buffer */
	buf = malloc(st.st_size + 1);
	if (!buf) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, st.st_size, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int only_files(const struct dirent *e)
{
	return e->d_type == DT_REG || e->d_type == DT_UNKNOWN;
}

static int run_dir(const char *dir, unsigned int *count)
{
	struct dirent **names;
	char path[4096];
	int n, i, ret = 0;

	n = scandir(dir, &names, only_files, alphasort);
	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (run_file(path))
			ret = -1;
		else
			(*count)++;
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	struct stat st;
	int i, ret = 0;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			ret = 1;
		} else if (S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) :
			   run_file(argv[i])) {
			ret = 1;
		} else if (!S_ISDIR(st.st_mode)) {
			count++;
		}
	}
	printf("%s: %u inputs replayed\n", argv[0], count);
	return ret || !count;
}
