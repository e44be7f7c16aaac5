#!/usr/bin/python3
"""pyverbs_run.py TESTS SKIP_LIST [PREFIX...]: run rdma-core's pyverbs test
suite, the test package in folder TESTS (rdma-core's tests/, with pyverbs on
PYTHONPATH), leaving out the test ids SKIP_LIST names, and only the ids that
start with a PREFIX when any is given.

SKIP_LIST holds one test id a line, then the reason it is left out; '#'
starts a comment.  Prints every test's outcome, the tests left out with
their reasons, the suite's own skips with theirs, and the counts.  Exits 1
when a test failed or raised an error, when the suite could not be loaded,
when no test matches the PREFIXes, or when a SKIP_LIST line names no test
of the suite (a stale line hides nothing, and must go); 2 on bad usage.
"""
import os
import sys
import unittest


def read_skips(path):
	skips = {}
	with open(path) as f:
		for n, line in enumerate(f, 1):
			line = line.split('#', 1)[0].strip()
			if not line:
				continue
			words = line.split(None, 1)
			if len(words) < 2:
				sys.exit(f'{path}:{n}: "{words[0]}" gives no reason')
			skips[words[0]] = words[1]
	return skips


def flatten(suite):
	for t in suite:
		if isinstance(t, unittest.TestSuite):
			yield from flatten(t)
		else:
			yield t


def load(tests_dir):
	# the package imports its argument parser as a top-level module, and
	# the parser reads sys.argv: it must see no options of ours.  The
	# package's parent, rdma-core's source, comes last: its pyverbs folder
	# holds the sources, not the built modules PYTHONPATH points at.
	sys.path.insert(0, tests_dir)
	sys.path.append(os.path.dirname(tests_dir))
	sys.argv[1:] = []
	from args_parser import parser
	parser.parse_args()
	import tests
	return list(flatten(unittest.defaultTestLoader.loadTestsFromModule(tests)))


def main():
	if len(sys.argv) < 3:
		print(__doc__, file=sys.stderr)
		return 2
	tests_dir, skip_list, prefixes = sys.argv[1], sys.argv[2], sys.argv[3:]
	skips = read_skips(skip_list)
	every = load(tests_dir)
	if not every:
		print(f'FAIL: no tests found in {tests_dir}')
		return 1
	ids = {t.id() for t in every}
	stale = sorted(set(skips) - ids)

	run = unittest.TestSuite()
	left_out = []
	for t in every:
		if prefixes and not t.id().startswith(tuple(prefixes)):
			continue
		if t.id() in skips:
			left_out.append(t.id())
			continue
		run.addTest(t)

	if not run.countTestCases() and not left_out:
		print(f'FAIL: no test id starts with {" or ".join(prefixes)}')
		return 1
	sys.stdout.flush()
	result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(run)

	print(f'\n== left out by {os.path.basename(skip_list)}:')
	for i in left_out:
		print(f'{i}: {skips[i]}')
	print('\n== skipped by the suite itself:')
	for t, reason in result.skipped:
		print(f'{t.id()}: {reason}')
	bad = len(result.failures) + len(result.errors) + \
		len(result.unexpectedSuccesses)
	passed = result.testsRun - bad - len(result.skipped) - \
		len(result.expectedFailures)
	print(f'\npyverbs: {result.testsRun} run, {passed} passed, '
	      f'{len(result.skipped)} skipped by the suite, '
	      f'{len(left_out)} left out by the list, '
	      f'{len(result.failures)} failed, {len(result.errors)} errors, '
	      f'{len(result.unexpectedSuccesses)} unexpected successes')
	for i in stale:
		print(f'FAIL: {skip_list} names {i}, no test of the suite')
	return 1 if bad or stale else 0


if __name__ == '__main__':
	sys.exit(main())
